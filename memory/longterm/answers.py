"""Questions about the user answered from memory, in the second person, with their source.

"What temperature do I like?" → "You told me on Wednesday that you like the cabin at 21
degrees." Recall always returns its top k, relevant or not; a wrong memory said
confidently is worse than "I don't know", so a memory answers only when it shares a
real topic with the question: a content word after stemming (the stop words and the
words every such question has — like, remember, told, favourite… — do not count), or a
domain key both name (an alias, a listed value or a unit: "temperature" and "21 degrees"
are both the cabin temperature).

Why not the retriever's score: its relevance is min–max normalised over the candidates,
so the best candidate scores 1.0 whatever the question (measured: "what's my favourite
colour?" against two memories, one about the seat and one about the temperature, gives
relevance 1.0 and 0.0 — the seat memory would be said). Shared topics, measured on the
tests' examples: "what temperature do I like?" ~ "Keep the cabin at 21 degrees" share the
temperature key (degrees is its unit); ~ "I like the seat further back" share nothing
once "like" is set aside; "what's my favourite colour?" shares nothing with either.
"""

from __future__ import annotations

import re

from monologue.memory.domain.schema import DomainSchema
from monologue.memory.language.cues import FIRST_PERSON_CUES, HAN, PAST_CUES, language_of
from monologue.memory.language.memory_cues import NAME_QUESTION, address_name
from monologue.memory.language.person import gist, second_person, when_said
from monologue.memory.language.phrases import say
from monologue.memory.language.stances import asks_for_information
from monologue.memory.longterm.exchange import Recalled
from monologue.memory.longterm.retrieval import stem, tokenize
from monologue.memory.longterm.speech import joined_sentences

# Words every question about the user has, which say nothing about its topic.
_GENERIC_EN = frozenset(stem(w) for w in (
    "like", "likes", "liked", "love", "loves", "prefer", "prefers", "preferred", "want", "wanted", "wants",
    "remember", "recall", "tell", "told", "say", "said", "know", "think", "favourite", "favorite", "usual",
    "usually", "always", "never", "last", "time", "again", "ever", "mention", "mentioned", "talk", "talked",
    "something", "anything", "thing", "things", "kind", "please", "what's", "whats", "don't", "did", "does",
    "get", "got", "mean", "feel", "also", "just", "much", "one", "still", "any", "some", "there", "us", "im",
    "i'm", "i'd", "i've", "you're"))
_GENERIC_ZH = re.compile("记不记得|还记得|记得|喜欢|告诉|说过|上次|之前|以前|什么|多少|怎么|哪里|哪儿|偏好|"
                         "习惯|跟你|跟我|我们|你们|我|你|您|的|了|吗|呢|吧|啊|是|过|还|要|想|说|几|哪|最|爱|对|在|有")
_SENTENCE = re.compile(r"(?<=[.?!。？！])\s*")
_DECLARATIVE_EN = re.compile(r"^(?:i|i'm|i've|i'd|i'll|my|we|we're|we've|our|me)\b", re.IGNORECASE)


def about_user(text: str) -> bool:
    """A question about the user or the past ("what temperature do I like?", "do you
    remember where I wanted to go?", 你记得我喜欢几度吗), not a request or a question about
    the world."""
    return any(asks_for_information(s) and (FIRST_PERSON_CUES.search(s) or PAST_CUES.search(s))
               for s in _SENTENCE.split(text.strip()) if s)


def _words(text: str) -> set[str]:
    if language_of(text) == "zh":
        out: set[str] = set()
        for run in re.findall(HAN + "+", _GENERIC_ZH.sub(" ", text)):
            out |= {run} if len(run) == 1 else {run[i:i + 2] for i in range(len(run) - 1)}
        return out | {w for w in tokenize(re.sub(HAN, " ", text)) if w not in _GENERIC_EN}
    return {w for w in tokenize(text) if w not in _GENERIC_EN}


def _keys(text: str, schema: DomainSchema | None) -> set[str]:
    """The domain keys the text names: by an alias, a label, a listed value or a unit."""
    if schema is None:
        return set()
    language = language_of(text)
    lowered = text.lower()

    def named(word: str) -> bool:
        return bool(word) and ((word in lowered) if language == "zh"
                               else re.search(r"(?<!\w)" + re.escape(word) + r"(?!\w)", lowered) is not None)
    keys = {key for word, key in schema.alias_lexicon(language) if named(word)}
    keys |= {spec.name for spec in schema.keys.values()
             for unit in spec.reading.units.get(language, ()) if named(unit.lower())}
    return keys


def relevant(question: str, memory: str, schema: DomainSchema | None = None) -> bool:
    """Whether a memory shares a real topic with the question (see the module's docstring)."""
    return bool(_words(question) & _words(memory)) or bool(_keys(question, schema) & _keys(memory, schema))


def has_topic(question: str, schema: DomainSchema | None = None) -> bool:
    """Whether the question names anything at all ("what did I say last time?" does not)."""
    return bool(_words(question) or _keys(question, schema))


def spoken_memory(item: Recalled, now: float, language: str) -> str:
    """"You told me on Wednesday that you like the seat further back." / "你周三跟我说过，你喜欢座椅靠后。" """
    when = when_said(item.at, now, language)
    point = gist(item.text, language)       # its meaning, not the correction wrapped around it
    said = second_person(point, language)
    if item.source != "user_stated":
        return say("memory.gathered", language, when=when, memory=said)
    if language == "en" and not _DECLARATIVE_EN.match(point.strip()):
        return say("memory.told.quoted", language, when=when, memory=said)
    return say("memory.told", language, when=when, memory=said)


def name_answer(question: str, items: list[Recalled], now: float) -> str | None:
    """"What's my name?" answered with the name the user asked to be called by, and when they
    said it; "you haven't told me" when no memory holds one. None for any other question."""
    if not NAME_QUESTION.search(question):
        return None
    language = language_of(question)
    named = [(i.at, name) for i in items if (name := address_name(i.text))]
    if not named:
        return say("memory.no_name", language)
    at, name = max(named)
    return say("memory.your_name", language, name=name, when=when_said(at, now, language))


def memory_answer(question: str, items: list[Recalled], now: float, schema: DomainSchema | None = None,
                  limit: int = 2) -> str | None:
    """The answer from memory, in the question's language, or None when memory holds
    nothing relevant to it. A question with no topic of its own that asks about the past
    ("what did I say last time?") is answered from the latest earlier session."""
    language = language_of(question)
    same = [i for i in items if language_of(i.text) == language]   # not read out in another language
    if has_topic(question, schema):
        chosen = [i for i in same if relevant(question, i.text, schema)]
    elif PAST_CUES.search(question) and same:
        latest = max(same, key=lambda i: i.at).session_id
        chosen = [i for i in same if i.session_id == latest]
    else:
        chosen = []
    if not chosen:
        return None
    return joined_sentences([spoken_memory(i, now, language) for i in chosen[:limit]], language)
