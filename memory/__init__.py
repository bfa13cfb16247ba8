"""Monologue's memory as a plain library: no frames, no audio, no pipecat.

Working memory (the conversation record and, next, the monologue state) and
long-term memory live here and are testable with text alone.
"""

from memory.conversation import ConversationLog, Utterance
from memory.turn_classes import TurnClass, TurnClassification, classify_turn

__all__ = ["ConversationLog", "TurnClass", "TurnClassification", "Utterance", "classify_turn"]
