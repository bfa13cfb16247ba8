"""Long-term memory's synchronous core (seeds 001, 002): plain blocking methods, no event loop.

One class over one user's memory (`UserMemory`, user_memory.py), its jobs each in a module:
- before a reply, `prepare` (preparing.py): recall, exact answers, memory commands, a
  contradiction noticed, the previous turn's question settled; reads only;
- after the reply, `after_reply` (writing.py): what the turn changes;
- a session's ends, `open_session` and `close_session` (session_ends.py).

`LongTermMemory` (engine.py) runs these in worker threads, one at a time, within its
latency budget. The core never calls working memory: it reads a `SessionSnapshot` and
returns what the session should change.
"""

from __future__ import annotations

from typing import Any

from monologue.memory.longterm.pending import awaiting_from
from monologue.memory.longterm.preparing import Preparing
from monologue.memory.longterm.session_ends import SessionEnds
from monologue.memory.longterm.writing import Writing
from monologue.memory.stores.journal import evidence_id
from monologue.memory.working.turn_classes import TurnClass


class LongTermCore(Preparing, Writing, SessionEnds):
    """One user's long-term memory across sessions (seed 002's memory stream)."""

    def replay(self, inputs: dict[str, Any], *, session_id: str, turn: int) -> list[str]:
        """Redo a journaled turn's writes (`pending.py`), unless they landed before the crash;
        returns the ids written. The question left open by the replay is not this session's:
        the one open now is kept."""
        if self.wrote(evidence_id(session_id, turn)):
            return []
        text, turn_class = inputs["text"], inputs.get("turn_class", TurnClass.CHIT_CHAT)
        open_now = self.awaiting
        try:
            prepared = self.prepare(text, session_id=session_id, turn_class=turn_class, schema=None,
                                    language=inputs.get("language", "en"),
                                    awaiting=awaiting_from(inputs.get("awaiting"), self.stream))
            self.awaiting = prepared.awaiting
            if prepared.no_history:
                self.no_history.add(session_id)
            return self.after_reply(prepared.before, text, session_id=session_id, turn=turn, turn_class=turn_class,
                                    reply_text=inputs.get("reply_text", ""))
        finally:
            self.awaiting = open_now
