"""The memory stream (seed 002 §3.1, §4.1): what the agent remembers about a user.

Natural-language records with importance, source, context and access bookkeeping;
retention tiers by importance; exact and near duplicates merge into one record with
raised importance. Only what the user said or did becomes a user fact: the agent's own
words are never stored as facts about the user (`add` refuses source "agent"). No model
score, merge or decay takes a record below the floor the rules read in its words
(importance.py): a need stays kept, a lasting preference a month or more.
Time comes from an injected clock so retention can be tested without waiting.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from loguru import logger

from monologue.memory.longterm.importance import read_statement, valid_for_days
from monologue.memory.longterm.records import DAY, SOURCES, MemoryKind, MemoryRecord, MemorySource, RetentionPolicy
from monologue.memory.stores.protocols import MemoryStore

Embed = Callable[[list[str]], np.ndarray]
_USER_SOURCES = (MemorySource.USER_STATED, MemorySource.INFERRED)
Audit = Callable[[str, Any, Any, str, str], None]      # what, before, after, reason, session


@dataclass(frozen=True)
class StreamOptions:
    """How the stream keeps its records: how long, by importance, and how alike two
    memories must be (cosine) for the second to merge into the first."""

    retention: RetentionPolicy | None = None     # None: `RetentionPolicy()`
    near_duplicate: float = 0.92


@dataclass(frozen=True)
class AddOptions:
    """What `add` otherwise decides itself: the importance (None: scored), when the memory
    was stated (None: now, by the stream's clock), and whether a repeat merges into the
    record it repeats (off: a correction or a change is never folded into what it replaces)."""

    importance: int | None = None
    created_at: float | None = None
    merge: bool = True


class MemoryStream:
    """One user's stream: write (score, merge, retain) and maintain (decay, archive)."""

    def __init__(self, store: MemoryStore, user_id: str, *, embed: Embed | None = None,
                 clock: Callable[[], float] = time.time, options: StreamOptions | None = None,
                 audit: Audit | None = None, importance_fn: Callable[[str], int | None] | None = None) -> None:
        options = options or StreamOptions()
        self.store = store
        self.audit = audit
        # Scores what the rules abstain on; runs on the write path. (The pipeline leaves it
        # unset: LongTermMemory asks its LLM at session end instead, see `consolidate`.)
        self.importance_fn = importance_fn
        self.user_id = user_id
        self.embed = embed
        self.clock = clock
        self.retention = options.retention or RetentionPolicy()
        self.near_duplicate = options.near_duplicate
        self.scorer_failures = 0     # the scorer raised; the memory was kept with the default importance

    def records(self) -> tuple[list[MemoryRecord], np.ndarray]:
        """The stream as stored now: the store keeps it cached and current, writes by other
        workers included (`SqlMemoryStore.all`)."""
        return self.store.all(self.user_id)

    def add(self, text: str, *, source: str = "user_stated", context: dict[str, Any] | None = None,
            evidence: list[str] | None = None, session_id: str = "", kind: str = "memory",
            options: AddOptions | None = None) -> MemoryRecord:
        """Write one memory, merging it into an existing one when it repeats it (unless
        `options.merge` is off: a correction or a change is never folded into what it replaces)."""
        options = options or AddOptions()
        importance, created_at, merge = options.importance, options.created_at, options.merge
        if source not in SOURCES:
            raise ValueError(f"source must be one of {SOURCES}; the agent's own words are not user facts")
        text = text.strip()
        if not text:
            raise ValueError("empty memory text")
        if len(text) > 2000:
            text = text[:2000]
        now = self.clock() if created_at is None else created_at
        score = importance if importance is not None else self.score(text, session_id)
        score = int(min(max(score, 1), 10))
        vector = self.embed([text])[0] if self.embed else None
        duplicate = self._duplicate_of(text, vector, kind, source) if merge else None
        if duplicate is not None:
            duplicate.merged += 1
            # A repeat raises importance; it never lowers it below what either wording is worth.
            floor = self.floor_of(duplicate) if source in _USER_SOURCES else 1
            duplicate.importance = min(10, max(duplicate.importance, score, floor) + 1)
            duplicate.expires_at = self.retention.expires_at(duplicate.importance, now)
            duplicate.evidence = list(dict.fromkeys(duplicate.evidence + (evidence or [])))
            duplicate.last_accessed_at = now
            duplicate.archived = False
            self.store.put(duplicate, None if vector is None else self.vector_of(duplicate))
            self._audit(f"memory:{duplicate.id}", None, duplicate.text,
                        f"repeated ({duplicate.merged}×): importance {duplicate.importance}", session_id)
            return duplicate
        context = dict(context or {})
        horizon = valid_for_days(text) if kind == "memory" and source != "plan" else None
        if horizon is not None:
            context.update(time_sensitive=True, valid_until=now + horizon * DAY)
        record = MemoryRecord(
            id=uuid.uuid4().hex[:12], user_id=self.user_id, text=text, importance=score, source=MemorySource(source),
            created_at=now, last_accessed_at=now, expires_at=self.retention.expires_at(score, now),
            kind=MemoryKind(kind),
            context=context, evidence=list(evidence or []), session_id=session_id)
        self.store.put(record, vector)
        self._audit(f"memory:{record.id}", None, text, f"new {kind} ({source}, importance {score})", session_id)
        return record

    def score(self, text: str, session_id: str = "") -> int:
        """Importance 1–10: rules first, then the scorer when the rules abstain (never
        below the rules' floor), else the default."""
        reading = read_statement(text)
        if reading.importance is not None or self.importance_fn is None:
            return reading.settle(None)
        try:
            scored = self.importance_fn(text)
        except Exception as exc:        # a scorer failure must not lose the memory
            self.scorer_failures += 1
            logger.bind(session=session_id).warning("session {}: importance scorer failed ({}: {}); default used",
                                                    session_id, type(exc).__name__, exc)
            scored = None
        return reading.settle(scored)

    @staticmethod
    def floor_of(record: MemoryRecord) -> int:
        """The least importance a model may give this record: what the rules read in
        what the user said (1 for the agent's plans and reflections)."""
        if record.source not in _USER_SOURCES:
            return 1
        return read_statement(record.text).floor

    def rescore(self, record: MemoryRecord, scored: int, reason: str, session_id: str = "") -> bool:
        """Apply a model's importance to a record, never below the rules' floor; the
        retention period follows. Returns whether the importance changed."""
        settled = int(min(max(scored, self.floor_of(record), 1), 10))
        if settled == record.importance:
            return False
        before = record.importance
        record.importance = settled
        record.expires_at = self.retention.expires_at(settled, record.created_at)
        floor_note = f", held at the floor {settled} (the model said {scored})" if settled != scored else ""
        self.save(record, f"importance {before} → {settled} ({reason}{floor_note})", session_id)
        return True

    def _audit(self, what: str, before: Any, after: Any, reason: str, session_id: str) -> None:
        if self.audit is not None:
            self.audit(what, before, after, reason, session_id)

    def get(self, memory_id: str) -> MemoryRecord | None:
        records, _ = self.records()
        return next((r for r in records if r.id == memory_id), None)

    def save(self, record: MemoryRecord, reason: str, session_id: str = "", before: Any = None) -> None:
        """Write back a changed record (status, importance, notes) with an audit entry."""
        self.store.put(record, self.vector_of(record))
        self._audit(f"memory:{record.id}", before, record.text, reason, session_id or record.session_id)

    def supersede(self, old: MemoryRecord, new: MemoryRecord, reason: str, session_id: str = "",
                  misstatement: bool = False) -> None:
        """`new` replaces `old`; the old one stays as history (never rewritten, never recalled)."""
        old.superseded_by = new.id
        if misstatement:
            old.notes.append(f"misstatement, corrected by {new.id}")
        self.store.put(old, self.vector_of(old))
        self._audit(f"memory:{old.id}", old.text, new.text, reason, session_id)
        # Reasoning built on the old memory (reflections, plans) is held until rebuilt.
        records, vectors = self.records()
        for i, record in enumerate(records):
            built_on_old = record.kind == "reflection" or record.source == "plan"
            if old.id in record.evidence and record.current and built_on_old:
                record.held = True
                record.notes.append(f"rests on a replaced memory ({old.id})")
                self.store.put(record, vectors[i] if vectors.shape[1] else None)
                self._audit(f"memory:{record.id}", None, record.text, f"held: rests on replaced memory {old.id}",
                            session_id)

    def forget(self, memory_id: str, session_id: str = "", reason: str = "forgotten at the user's request") -> bool:
        record = self.get(memory_id)
        if record is None or not self.store.delete(self.user_id, memory_id):
            return False
        self._audit(f"memory:{memory_id}", record.text, None, reason, session_id)
        return True

    def forget_with_derived(self, memory_ids: list[str], session_id: str = "") -> list[str]:
        """Forget these memories and what was drawn from them — plans and reflections whose
        evidence cites one (they quote it: "because you told me you live at …"). Returns
        every id forgotten."""
        forgotten = [m for m in memory_ids if self.forget(m, session_id)]
        gone = set(forgotten)
        while True:
            derived = [r for r in self.records()[0] if r.id not in gone and gone & set(r.evidence)]
            if not derived:
                return forgotten
            for record in derived:
                if self.forget(record.id, session_id, "forgotten: it rested on a memory the user had forgotten"):
                    forgotten.append(record.id)
                gone.add(record.id)

    def erase(self) -> int:
        """Every memory of the user, and its vector, gone; returns how many."""
        count = self.store.erase_user(self.user_id)
        return count

    def vector_of(self, record: MemoryRecord) -> np.ndarray | None:
        records, vectors = self.records()
        for i, r in enumerate(records):
            if r.id == record.id:
                return vectors[i]
        return None

    def _duplicate_of(self, text: str, vector: np.ndarray | None, kind: str, source: str) -> MemoryRecord | None:
        # A repeat of a replaced or held memory is not merged into it: it is a new statement.
        exact = self.store.find_text(self.user_id, text)
        def mergeable(r: MemoryRecord) -> bool:   # a plan or reflection never absorbs a user fact
            return not (r.superseded_by or r.held) and r.kind == kind and (r.source == "plan") == (source == "plan")

        if exact is not None and mergeable(exact):
            return exact
        if vector is None:
            return None
        records, vectors = self.records()
        if not records or vectors.shape[1] != vector.shape[0]:
            return None
        sims = vectors @ vector
        for best in np.argsort(-sims)[:5]:
            if sims[best] < self.near_duplicate:
                break
            if mergeable(records[best]):
                return records[best]
        return None

    def maintain(self) -> dict[str, int]:
        """Apply retention: past their time, middle-tier memories lose one point of
        importance (and get the new tier's period); low ones are archived. Confirmed
        memories and the top tier are kept. Nothing decays below the rules' floor: a
        lasting preference or a need scored low (by a model, or before the rules knew
        its wording) is lifted to its floor instead of archived."""
        now = self.clock()
        records, vectors = self.records()
        archived = decayed = 0
        for i, record in enumerate(records):
            if record.archived or record.confirmed or not record.expired(now):
                continue
            before = record.importance
            floor = self.floor_of(record)
            if record.importance <= floor and floor > self.retention.decay_from:
                record.importance = floor
                record.expires_at = self.retention.expires_at(floor, now)
                reason = f"kept: importance {before} → {floor}, the floor for what the user said"
            elif record.importance < self.retention.decay_from:
                record.archived = True
                archived += 1
                reason = "archived: low importance, past its retention period"
            else:
                record.importance -= 1
                record.expires_at = self.retention.expires_at(record.importance, now)
                decayed += 1
                reason = f"decayed: importance {before} → {record.importance} after its retention period"
            self.store.put(record, vectors[i] if vectors.shape[1] else None)
            self._audit(f"memory:{record.id}", None, record.text, reason, "")
        return {"archived": archived, "decayed": decayed}

    def touch(self, memory_ids: list[str]) -> None:
        """Record that these memories were retrieved (access count and time)."""
        now = self.clock()
        records, vectors = self.records()
        wanted = set(memory_ids)
        rows = []
        for i, record in enumerate(records):
            if record.id in wanted:
                record.access_count += 1
                record.last_accessed_at = now
                rows.append((record, vectors[i] if vectors.shape[1] else None))
        if rows:
            self.store.put_many(rows)          # one transaction, not one commit per memory
