"""The `monologue` commands that look into what was kept: state, memories, profiles, models.

Split from the running commands (`cli.py`) because they share nothing with a live session:
no pipeline, no audio, mostly no models; each opens a store, prints, and returns an exit code
(0 done, 2 nothing there to show or change). Imports stay inside the commands so
`monologue --help` does not pay for them.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import sys
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

from monologue.memory.language.plain_text import shown_safely

if TYPE_CHECKING:
    from monologue.memory.longterm.records import MemoryRecord
    from monologue.memory.longterm.stream import MemoryStream


class _TerminalSafe(io.TextIOBase):
    """Standard output as these commands write it: what a store holds (a user's words, maybe
    written before they were made plain text) never reaches the terminal as an escape code
    or a bidi override; such characters are shown as `\\u001b`, `\\u202e`."""

    def __init__(self, stream: io.TextIOBase) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(shown_safely(text))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()


def _prints_stored_words(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    @functools.wraps(command)
    def printing_safely(args: argparse.Namespace) -> int:
        with contextlib.redirect_stdout(_TerminalSafe(sys.stdout)):   # type: ignore[arg-type]
            return command(args)
    return printing_safely


def _store_path(args: argparse.Namespace) -> str:
    """--store (a path or URL), else the configured store."""
    from monologue.configs import load_config

    config = load_config(args.config)
    return str(args.store or config.store.url or config.store.path)


@_prints_stored_words
def cmd_state_show(args: argparse.Namespace) -> int:
    import json

    from monologue.configs import load_config
    from monologue.memory.domain.schema import load_schema
    from monologue.memory.domain.several import domain_names, load_domains
    from monologue.memory.working.render import render_state
    from monologue.pipeline.builder import open_store

    config = load_config(args.config)
    store = open_store(config, args.store)
    state = store.load(args.session)
    if state is None:
        known = ", ".join(s for s, _, _ in store.sessions()[:10]) or "none yet"
        print(f"monologue: no session {args.session!r} in {config.store.path if not args.store else args.store}; "
              f"recent sessions: {known}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"state": state.to_dict(), "history": [vars(c) for c in store.history(args.session)]},
                         ensure_ascii=False, indent=1))
        return 0
    print(f"session {state.session_id} — version {state.version}, turn {state.turn}, domain {state.domain}")
    # A session of a several-domain agent is rendered with every domain's keys.
    several = state.domain in domain_names(config.monologue.domain)
    schema = load_domains(config.monologue.domain).schema if several else load_schema(state.domain)
    print(render_state(state, schema, config.language))
    if state.last_monologue:
        print(f"\nlast monologue: {state.last_monologue}")
    print("\nhistory:")
    for change in store.history(args.session):
        before = "" if change.before is None else f"{change.before} "
        after = "" if change.after is None else f"→ {change.after}"
        print(f"  v{change.version} turn {change.turn}: {change.action} {change.slot}: {before}{after}"
              f"{f'  ({change.reason})' if change.reason else ''}")
    return 0


def _memory_stream(args: argparse.Namespace, embed: bool = False) -> MemoryStream:
    from monologue.memory.longterm.stream import MemoryStream
    from monologue.memory.stores.memories import SqlMemoryStore

    encoder = None
    if embed:
        from monologue.models.embedder import SentenceEncoder

        encoder = SentenceEncoder().embed
    return MemoryStream(SqlMemoryStore(_store_path(args)), args.user, embed=encoder)


def _show_memory(record: MemoryRecord, score: float | None = None) -> None:
    import datetime as dt

    when = dt.datetime.fromtimestamp(record.created_at).strftime("%Y-%m-%d %H:%M")
    flags = ((" archived" if record.archived else "")
             + (f" replaced-by:{record.superseded_by}" if record.superseded_by else "")
             + (" held" if record.held else ""))
    prefix = f"{score:5.2f} " if score is not None else ""
    print(f"{prefix}{record.id}  {when}  imp {record.importance:2d}  {record.source:11} {record.kind:10} "
          f"{record.tier or 'private':10}{flags}  {record.text}")


@_prints_stored_words
def cmd_memory(args: argparse.Namespace) -> int:
    action = args.memory_command
    if action == "search":
        from monologue.memory.longterm.engine import RECALL_WEIGHTS
        from monologue.memory.longterm.retrieval import Retriever

        stream = _memory_stream(args, embed=True)
        result = Retriever(stream, RECALL_WEIGHTS).retrieve(args.query, k=args.k)   # ranked as recall ranks
        for item in result.memories + result.reflections:
            _show_memory(item.record, item.score)
        if not result.memories and not result.reflections:
            print(f"nothing remembered for {args.user!r} matches {args.query!r}")
        return 0
    stream = _memory_stream(args)
    if action == "show":
        return _memory_show(args, stream)
    if action == "list":
        records, _ = stream.records()
        for record in records:
            _show_memory(record)
        tiers = Counter(r.tier or "private" for r in records)
        by_tier = ", ".join(f"{tiers[t]} {t}" for t in ("local_only", "private", "shareable") if tiers[t])
        print(f"{len(records)} memories for {args.user!r}" + (f" ({by_tier})" if by_tier else ""))
        damaged = getattr(stream.store, "damaged", [])
        if damaged:
            print(f"monologue: {len(damaged)} memory row(s) failed their integrity check and are not used: "
                  f"{', '.join(damaged)} (changed on disk, or moved from another row)", file=sys.stderr)
            return 1
        return 0
    if action == "forget":
        from monologue.memory.stores.profiles import SqlProfileStore

        profiles = SqlProfileStore(_store_path(args))
        stream.audit = lambda what, before, after, reason, session: profiles.append_audit(
            args.user, what, before, after, reason, session)
        if not stream.forget(args.id, "cli"):
            print(f"monologue: no memory {args.id!r} for user {args.user!r}", file=sys.stderr)
            return 2
        print(f"forgot {args.id}")
        return 0
    if action == "erase":
        if not args.yes:
            print(f"monologue: erase deletes every memory of {args.user!r}; add --yes to confirm", file=sys.stderr)
            return 2
        from monologue.configs import load_config
        from monologue.memory.stores.erasure import erase_user
        from monologue.memory.stores.factory import open_stores

        erased = erase_user(open_stores(_store_path(args), load_config(args.config).state.url), args.user, "cli")
        print(f"erased {erased.memories} memories of {args.user!r}, their profile, summaries and promises, "
              f"{erased.actions} record(s) of what was done for them, {erased.states} session state(s) and "
              f"{len(erased.files)} session file(s); the audit log keeps only a tombstone of the erase")
        return 0
    return 2


def cmd_memory_key(args: argparse.Namespace) -> int:
    """`memory new-key` prints a fresh key; `memory rotate-key` re-seals the store under one."""
    if args.memory_command == "new-key":
        from monologue.memory.stores.sealing import encode_key, new_key

        print(encode_key(new_key()))
        return 0
    from monologue.memory.stores.rotation import rotate_key

    path = _store_path(args)
    rotation = rotate_key(path)
    print(f"{path}: {rotation.values} sealed value(s) re-sealed; key {rotation.old_key} → {rotation.new_key}, "
          f"now in {rotation.key_file}; the old key no longer opens it")
    return 0


def _memory_show(args: argparse.Namespace, stream: MemoryStream) -> int:
    import datetime as dt
    import json

    from monologue.memory.stores.profiles import SqlProfileStore

    record = stream.get(args.id)
    if record is None:
        print(f"monologue: no memory {args.id!r} for user {args.user!r}", file=sys.stderr)
        return 2

    def when(at: float | None) -> str:
        return dt.datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M") if at else "never"

    print(f"{record.id}: {record.text}")
    print(f"  kind {record.kind}, source {record.source}, importance {record.importance}, "
          f"session {record.session_id or '-'}")
    print(f"  created {when(record.created_at)}, last used {when(record.last_accessed_at)} "
          f"({record.access_count}×), expires {when(record.expires_at)}")
    status = ("replaced by " + record.superseded_by if record.superseded_by else "held (contradiction asked)"
              if record.held else "archived" if record.archived else "current")
    print(f"  status {status}{', confirmed' if record.confirmed else ''}; merged {record.merged}×")
    if record.context:
        print(f"  context {json.dumps(record.context, ensure_ascii=False)}")
    if record.evidence:
        print(f"  evidence {', '.join(record.evidence)}")
    for note in record.notes:
        print(f"  note: {note}")
    history = [e for e in SqlProfileStore(_store_path(args)).audit(args.user)
               if e["what"] == f"memory:{record.id}"]
    print("  audit:")
    for entry in history:
        print(f"    {when(entry['at'])} {entry['reason']}: {entry['before']} → {entry['after']}")
    return 0


@_prints_stored_words
def cmd_sessions(args: argparse.Namespace) -> int:
    import datetime as dt

    from monologue.memory.longterm.summaries import SummaryPyramid
    from monologue.memory.stores.profiles import SqlProfileStore

    profiles = SqlProfileStore(_store_path(args))
    profile = profiles.load(args.user)
    sessions = profiles.summaries(args.user, "session")
    if not sessions:
        print(f"no sessions for {args.user!r} yet")
        return 0
    last = profile.last_session
    print(f"{len(sessions)} session(s) of {args.user!r}; last {last.get('id')} [{last.get('status', '?')}]")
    for entry in reversed(sessions):
        print(f"  {entry['key']}  {dt.datetime.fromtimestamp(entry['at']).strftime('%Y-%m-%d %H:%M')}  {entry['text']}")
    pyramid = SummaryPyramid(profiles, args.user).load()
    if pyramid.merged:
        print(f"merged ({len(pyramid.merged['sessions'])} sessions before the last 5): {pyramid.merged['text']}")
    if pyramid.overall:
        print(f"overall: {pyramid.overall['text']}")
    open_items = profiles.open_commitments(args.user)
    if open_items:
        print("promises not yet kept: " + "; ".join(p["text"] for p in open_items))
    return 0


@_prints_stored_words
def cmd_actions(args: argparse.Namespace) -> int:
    """What the agent did for a user (bookings, routes, tickets), newest first."""
    import datetime as dt

    from monologue.memory.stores.actions import SqlActionStore

    owner = args.user or f"session:{args.session}"
    records = SqlActionStore(_store_path(args)).records(owner)
    if not records:
        print(f"nothing done for {owner!r} yet")
        return 0
    for record in records:
        when = dt.datetime.fromtimestamp(record.at).strftime("%Y-%m-%d %H:%M")
        said = record.said.get("en") or record.action
        print(f"{record.id}  {when}  {record.domain}  {said}  (session {record.session_id})")
    return 0


@_prints_stored_words
def cmd_profile_show(args: argparse.Namespace) -> int:
    import datetime as dt

    from monologue.memory.stores.profiles import SqlProfileStore

    profiles = SqlProfileStore(_store_path(args))
    profile = profiles.load(args.user)
    if not profile.facts and not profile.last_session:
        print(f"no profile for {args.user!r} yet")
        return 0
    print(f"profile of {args.user!r} (version {profile.version})")
    for fact in profile.facts.values():
        when = dt.datetime.fromtimestamp(fact.updated_at).strftime("%Y-%m-%d %H:%M")
        print(f"  {fact.key} {fact.comparator} {fact.value}   (\"{fact.words}\", session {fact.session_id}, {when})")
    if profile.last_session:
        print(f"last session {profile.last_session.get('id')} [{profile.last_session.get('status', '?')}]: "
              f"{profile.last_session.get('goal') or '-'}; "
              + "; ".join(profile.last_session.get("conditions", [])))
    print("audit log:")
    for entry in profiles.audit(args.user):
        when = dt.datetime.fromtimestamp(entry["at"]).strftime("%Y-%m-%d %H:%M")
        print(f"  {when} {entry['what']}: {entry['before']} → {entry['after']} ({entry['reason']}, {entry['session']})")
    return 0


def cmd_models(args: argparse.Namespace) -> int:
    from monologue.models.registry import ENTRIES, check

    failed = 0
    print(f"{'model':34} {'role':11} {'size':>9}  {'status':8} package")
    for entry in ENTRIES:
        status = check(entry, load=args.load)
        size = f"{status.size_mb:,.0f} MB" if status.size_mb >= 1 else f"{status.size_mb * 1000:.0f} kB"
        if status.loads:
            state = f"loads {status.load_secs:.1f}s" if status.load_secs is not None else "found"
        else:
            state, failed = "MISSING", failed + 1
        print(f"{entry.name:34} {entry.role:11} {size:>9}  {state:8} {entry.requirement}  [{entry.licence}]")
        if status.error:
            print(f"{'':34}   → {status.error}")
    return 1 if failed and args.strict else 0
