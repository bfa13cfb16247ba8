"""The memory stream (seed 002 §3.1, §4.1): what the agent remembers about a user.

Natural-language records with importance, source, context and access bookkeeping;
retention tiers by importance; exact and near duplicates merge into one record with
raised importance. Only what the user said or did becomes a user fact: the agent's own
words are never stored as facts about the user (`add` refuses source "agent").
Time comes from an injected clock so retention can be tested without waiting.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

SOURCES = ("user_stated", "inferred", "reflection", "plan")
DAY = 86400.0

_SAFETY = re.compile(r"\b(?:allerg\w*|epipen|asthma|diabet\w*|pregnan\w*|medic\w*|wheelchair|seizure|emergency|"
                     r"heart condition|blood pressure|disab\w*)\b|过敏|哮喘|糖尿病|怀孕|药|轮椅", re.IGNORECASE)
_PREFERENCE = re.compile(r"\b(?:i (?:always|never|usually|prefer|hate|love|like|dislike|can'?t stand|don'?t like|want)|"
                         r"my favou?rite|please (?:always|never|don'?t))\b|我(?:喜欢|不喜欢|讨厌|习惯|总是|从不|偏好)|别再", re.IGNORECASE)
_ROUTINE = re.compile(r"\b(?:route|commute|seat|temperature|climate|heating|parking|highway|toll|traffic|jam)\b|"
                      r"路线|座椅|温度|空调|停车|高速|堵", re.IGNORECASE)
_IDENTITY = re.compile(r"\b(?:my name is|call me|i live|i work|my (?:wife|husband|son|daughter|kids?|children|"
                       r"partner|mom|mother|dad|father|birthday|address))\b|我叫|我住|我的(?:孩子|老婆|老公|生日)", re.IGNORECASE)
_PLAN = re.compile(r"\b(?:tomorrow|next (?:week|month|year)|on (?:monday|tuesday|wednesday|thursday|friday|saturday|"
                   r"sunday)|appointment|meeting|plan(?:ning)? to|going to|will)\b|明天|下周|计划|打算|预约", re.IGNORECASE)
_SMALL_TALK = re.compile(r"^\W*(?:hi|hello|hey|thanks|thank you|ok(?:ay)?|cool|nice|great|haha|lol|bye|good (?:morning|night))\b",
                         re.IGNORECASE)


def rule_importance(text: str) -> int | None:
    """1–10 by rules, or None when the rules abstain (then an LLM may score it)."""
    if _SAFETY.search(text):
        return 9
    if _IDENTITY.search(text):
        return 8
    if _PREFERENCE.search(text) or _ROUTINE.search(text):
        return 7
    if _PLAN.search(text):
        return 6
    if _SMALL_TALK.search(text) and len(text.split()) <= 6:
        return 2
    return None


_HORIZONS = ((re.compile(r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b|今天|今晚", re.I), 1.0),
             (re.compile(r"\btomorrow\b|明天", re.I), 2.0),
             (re.compile(r"\b(?:this week|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b|"
                         r"这周|本周|(?:周|星期)[一二三四五六日天]", re.I), 7.0),
             (re.compile(r"\bnext week\b|下周", re.I), 14.0),
             (re.compile(r"\bnext month\b|下个月", re.I), 45.0))


def valid_for_days(text: str) -> float | None:
    """How long a time-bound statement stays true ("tomorrow" → 2 days), else None."""
    for pattern, days in _HORIZONS:
        if pattern.search(text):
            return days
    return None


@dataclass(frozen=True)
class RetentionPolicy:
    keep_forever_from: int = 8        # importance ≥ this: kept until deleted
    decay_from: int = 4               # importance in [decay_from, keep_forever_from): decays after decay_days
    decay_days: float = 30.0
    archive_days: float = 7.0         # importance < decay_from: archived after this

    def expires_at(self, importance: int, created_at: float) -> float | None:
        if importance >= self.keep_forever_from:
            return None
        days = self.decay_days if importance >= self.decay_from else self.archive_days
        return created_at + days * DAY


@dataclass
class MemoryRecord:
    id: str
    user_id: str
    text: str
    importance: int
    source: str
    created_at: float
    last_accessed_at: float
    expires_at: float | None
    kind: str = "memory"               # memory | reflection
    access_count: int = 0
    context: dict[str, Any] = field(default_factory=dict)
    evidence: list[str] = field(default_factory=list)
    session_id: str = ""
    confirmed: bool = False
    archived: bool = False
    merged: int = 1
    superseded_by: str = ""            # a later memory replaced this one (kept as history, not recalled)
    held: bool = False                 # contradicts a high-risk memory: not used until the user confirms
    notes: list[str] = field(default_factory=list)   # annotations: rejection reasons, misstatement marks

    @property
    def current(self) -> bool:
        return not (self.superseded_by or self.held or self.archived)

    def expired(self, now: float) -> bool:
        return self.expires_at is not None and now >= self.expires_at

    def outdated(self, now: float) -> bool:
        """A time-bound statement ("tomorrow at 3") whose time has passed."""
        return bool(self.context.get("valid_until")) and now >= self.context["valid_until"]


def _norm_text(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s\u4e00-\u9fff]", "", text.lower())).strip()


# An upsert, not INSERT OR REPLACE: REPLACE deletes and re-inserts, giving the row a new
# rowid, and `all()` lists by rowid — the stream's order must stay the order of writing.
_UPSERT = ("INSERT INTO memories (id, user_id, record, vector, norm_text) VALUES (?, ?, ?, ?, ?) "
           "ON CONFLICT(id) DO UPDATE SET record = excluded.record, vector = excluded.vector, "
           "norm_text = excluded.norm_text")


class MemoryStore:
    """SQLite file holding every user's stream and its vectors (one table, one BLOB a row)."""

    def __init__(self, path: str | Path = ":memory:") -> None:
        self._path = str(Path(path).expanduser()) if str(path) != ":memory:" else ":memory:"
        if self._path != ":memory:":
            Path(self._path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self._path, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(
            """
            CREATE TABLE IF NOT EXISTS memories (
                id TEXT PRIMARY KEY, user_id TEXT NOT NULL, record TEXT NOT NULL, vector BLOB,
                norm_text TEXT NOT NULL
            );
            CREATE INDEX IF NOT EXISTS memories_user ON memories(user_id);
            CREATE INDEX IF NOT EXISTS memories_text ON memories(user_id, norm_text);
            """
        )

    def put(self, record: MemoryRecord, vector: np.ndarray | None) -> None:
        blob = None if vector is None else np.asarray(vector, dtype=np.float32).tobytes()
        with self._lock:
            self._db.execute(_UPSERT,
                             (record.id, record.user_id, json.dumps(asdict(record), ensure_ascii=False), blob,
                              _norm_text(record.text)))

    def put_many(self, rows: list[tuple[MemoryRecord, np.ndarray | None]]) -> None:
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.executemany(
                    _UPSERT,
                    [(r.id, r.user_id, json.dumps(asdict(r), ensure_ascii=False),
                      None if v is None else np.asarray(v, dtype=np.float32).tobytes(), _norm_text(r.text))
                     for r, v in rows])
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def find_text(self, user_id: str, text: str) -> MemoryRecord | None:
        with self._lock:
            row = self._db.execute("SELECT record FROM memories WHERE user_id = ? AND norm_text = ? ORDER BY rowid DESC",
                                   (user_id, _norm_text(text))).fetchone()
        return MemoryRecord(**json.loads(row[0])) if row else None

    def all(self, user_id: str) -> tuple[list[MemoryRecord], np.ndarray]:
        with self._lock:
            rows = self._db.execute("SELECT record, vector FROM memories WHERE user_id = ? ORDER BY rowid",
                                    (user_id,)).fetchall()
        records = [MemoryRecord(**json.loads(r[0])) for r in rows]
        dims = next((len(r[1]) // 4 for r in rows if r[1]), 0)
        vectors = np.zeros((len(rows), dims), dtype=np.float32)
        for i, r in enumerate(rows):
            if r[1]:
                vectors[i] = np.frombuffer(r[1], dtype=np.float32)
        return records, vectors

    def delete(self, user_id: str, memory_id: str) -> bool:
        with self._lock:
            return self._db.execute("DELETE FROM memories WHERE user_id = ? AND id = ?",
                                    (user_id, memory_id)).rowcount > 0

    def erase_user(self, user_id: str) -> int:
        with self._lock:
            count = self._db.execute("DELETE FROM memories WHERE user_id = ?", (user_id,)).rowcount
            self._db.execute("VACUUM") if self._path != ":memory:" else None
        return count


Embed = Callable[[list[str]], np.ndarray]
Audit = Callable[[str, Any, Any, str, str], None]      # what, before, after, reason, session


class MemoryStream:
    """One user's stream: write (score, merge, retain) and maintain (decay, archive)."""

    def __init__(self, store: MemoryStore, user_id: str, *, embed: Embed | None = None,
                 clock: Callable[[], float] = time.time, retention: RetentionPolicy | None = None,
                 near_duplicate: float = 0.92, audit: Audit | None = None,
                 importance_fn: Callable[[str], int | None] | None = None) -> None:
        self.store = store
        self.audit = audit
        # Scores what the rules abstain on; runs on the write path. (The pipeline leaves it
        # unset: LongTermMemory asks its LLM at session end instead, see `consolidate`.)
        self.importance_fn = importance_fn
        self.user_id = user_id
        self.embed = embed
        self.clock = clock
        self.retention = retention or RetentionPolicy()
        self.near_duplicate = near_duplicate
        self._cache: tuple[list[MemoryRecord], np.ndarray] | None = None

    def records(self) -> tuple[list[MemoryRecord], np.ndarray]:
        if self._cache is None:
            self._cache = self.store.all(self.user_id)
        return self._cache

    def add(self, text: str, *, source: str = "user_stated", importance: int | None = None,
            context: dict[str, Any] | None = None, evidence: list[str] | None = None, session_id: str = "",
            kind: str = "memory", created_at: float | None = None, merge: bool = True) -> MemoryRecord:
        """Write one memory, merging it into an existing one when it repeats it (unless
        `merge` is off: a correction or a change is never folded into what it replaces)."""
        if source not in SOURCES:
            raise ValueError(f"source must be one of {SOURCES}; the agent's own words are not user facts")
        text = text.strip()
        if not text:
            raise ValueError("empty memory text")
        if len(text) > 2000:
            text = text[:2000]
        now = self.clock() if created_at is None else created_at
        score = importance if importance is not None else self.score(text)
        score = int(min(max(score, 1), 10))
        vector = self.embed([text])[0] if self.embed else None
        duplicate = self._duplicate_of(text, vector, kind, source) if merge else None
        if duplicate is not None:
            duplicate.merged += 1
            duplicate.importance = min(10, max(duplicate.importance, score) + 1)
            duplicate.expires_at = self.retention.expires_at(duplicate.importance, now)
            duplicate.evidence = list(dict.fromkeys(duplicate.evidence + (evidence or [])))
            duplicate.last_accessed_at = now
            duplicate.archived = False
            self.store.put(duplicate, None if vector is None else self._vector_of(duplicate))
            self._cache = None
            self._audit(f"memory:{duplicate.id}", None, duplicate.text,
                        f"repeated ({duplicate.merged}×): importance {duplicate.importance}", session_id)
            return duplicate
        context = dict(context or {})
        horizon = valid_for_days(text) if kind == "memory" and source != "plan" else None
        if horizon is not None:
            context.update(time_sensitive=True, valid_until=now + horizon * DAY)
        record = MemoryRecord(
            id=uuid.uuid4().hex[:12], user_id=self.user_id, text=text, importance=score, source=source,
            created_at=now, last_accessed_at=now, expires_at=self.retention.expires_at(score, now), kind=kind,
            context=context, evidence=list(evidence or []), session_id=session_id)
        self.store.put(record, vector)
        self._cache = None
        self._audit(f"memory:{record.id}", None, text, f"new {kind} ({source}, importance {score})", session_id)
        return record

    def score(self, text: str) -> int:
        """Importance 1–10: rules first, then the scorer when the rules abstain, else 4."""
        ruled = rule_importance(text)
        if ruled is not None:
            return ruled
        if self.importance_fn is not None:
            try:
                scored = self.importance_fn(text)
            except Exception:        # a scorer failure must not lose the memory
                scored = None
            if scored is not None:
                return int(min(max(scored, 1), 10))
        return 4

    def _audit(self, what: str, before: Any, after: Any, reason: str, session_id: str) -> None:
        if self.audit is not None:
            self.audit(what, before, after, reason, session_id)

    def get(self, memory_id: str) -> MemoryRecord | None:
        records, _ = self.records()
        return next((r for r in records if r.id == memory_id), None)

    def save(self, record: MemoryRecord, reason: str, session_id: str = "", before: Any = None) -> None:
        """Write back a changed record (status, importance, notes) with an audit entry."""
        self.store.put(record, self._vector_of(record))
        self._cache = None
        self._audit(f"memory:{record.id}", before, record.text, reason, session_id or record.session_id)

    def supersede(self, old: MemoryRecord, new: MemoryRecord, reason: str, session_id: str = "",
                  misstatement: bool = False) -> None:
        """`new` replaces `old`; the old one stays as history (never rewritten, never recalled)."""
        old.superseded_by = new.id
        if misstatement:
            old.notes.append(f"misstatement, corrected by {new.id}")
        self.store.put(old, self._vector_of(old))
        self._cache = None
        self._audit(f"memory:{old.id}", old.text, new.text, reason, session_id)
        # Reasoning built on the old memory (reflections, plans) is held until rebuilt.
        records, vectors = self.records()
        for i, record in enumerate(records):
            if old.id in record.evidence and record.current and (record.kind == "reflection" or record.source == "plan"):
                record.held = True
                record.notes.append(f"rests on a replaced memory ({old.id})")
                self.store.put(record, vectors[i] if vectors.shape[1] else None)
                self._audit(f"memory:{record.id}", None, record.text, f"held: rests on replaced memory {old.id}",
                            session_id)
        self._cache = None

    def forget(self, memory_id: str, session_id: str = "") -> bool:
        record = self.get(memory_id)
        if record is None or not self.store.delete(self.user_id, memory_id):
            return False
        self._cache = None
        self._audit(f"memory:{memory_id}", record.text, None, "forgotten at the user's request", session_id)
        return True

    def _vector_of(self, record: MemoryRecord) -> np.ndarray | None:
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
        memories and the top tier are kept."""
        now = self.clock()
        records, vectors = self.records()
        archived = decayed = 0
        for i, record in enumerate(records):
            if record.archived or record.confirmed or not record.expired(now):
                continue
            before = record.importance
            if record.importance < self.retention.decay_from:
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
        self._cache = None
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
