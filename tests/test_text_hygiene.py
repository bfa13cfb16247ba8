"""Text hygiene: what a user's words may hold once stored or printed, and
who may read the files that hold them.

- Controls and bidi overrides are neutralised where words come in (typed turns, chat
  scripts, transcripts) and where memories are written; empty and invisible turns are not turns.
- What a store already holds is printed with such characters as visible escapes.
- A session's trace, transcript, audio and report are 0600; a key file others can read is refused.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from monologue.memory.language.plain_text import has_visible, plain_text, shown_safely

from fakes import ROOT

ESC, BEL, RLO, PDF, LRI, ZWSP, ZWJ = "\x1b", "\x07", "\u202e", "\u202c", "\u2066", "\u200b", "\u200d"
TERMINAL_ACTORS = (ESC, BEL, RLO, PDF, LRI, "\x9b")          # \x9b: the one-byte CSI


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# ---------------------------------------------------------------------------------------------
# The text itself

@pytest.mark.parametrize("said, plain", [
    (f"{ESC}[31mI live at 12 Elm Street{ESC}[0m{BEL}", "[31mI live at 12 Elm Street [0m"),
    (f"my PIN is {RLO}4321{PDF}", "my PIN is 4321"),
    (f"book it\nfor\tfour\r\n{LRI}people\u2069", "book it for four people"),
    (f"pay{ZWSP}ment \ufeffof $40.50", "payment of $40.50"),
    ("我想订一张四个人的桌子", "我想订一张四个人的桌子"),
    (f"a family 👨{ZWJ}👩{ZWJ}👧 of three", f"a family 👨{ZWJ}👩{ZWJ}👧 of three"),   # the joiner builds the emoji
    ("  café   at  7 pm  ", "café at 7 pm"),
])
def test_plain_text_keeps_every_script_and_drops_what_acts_on_a_reader(said: str, plain: str) -> None:
    assert plain_text(said) == plain
    assert not any(ch in plain_text(said) for ch in TERMINAL_ACTORS)


def test_a_turn_of_nothing_visible_is_no_turn() -> None:
    for nothing in ("", "   ", "\t\n", f"{ZWSP}{ZWSP}", f"{ZWJ}\ufeff \u2060", f"{RLO}{LRI}", ESC + BEL):
        assert not has_visible(nothing), repr(nothing)
    for something in ("a", "好", "👍", f"{ZWSP}ok", "4"):
        assert has_visible(something), repr(something)


def test_shown_safely_makes_every_actor_visible_and_keeps_json_valid() -> None:
    shown = shown_safely(f"a{ESC}[2Jb{RLO}c\x9bd\ne\tf 你好")
    assert shown == "a\\u001b[2Jb\\u202ec\\u009bd\ne\tf 你好"
    # JSON written with ensure_ascii=False passes bidi and C1 characters raw; shown safely it
    # is still JSON, and means the same.
    value = {"text": f"x{RLO}y\x85z{ESC}"}
    assert json.loads(shown_safely(json.dumps(value, ensure_ascii=False))) == value


# ---------------------------------------------------------------------------------------------
# Where words come in

def test_typed_turns_and_chat_scripts_are_plain_text() -> None:
    from monologue.pipeline.text_chat import parse_script, typed_turn

    script = f"hello {ESC}[1mthere{ESC}[0m\n   \n{ZWSP}{ZWSP}\n{RLO}table for two\n---\n{BEL}\nbye"
    assert parse_script(script) == [["hello [1mthere [0m", "table for two"], ["bye"]]
    assert typed_turn(1, f"four{BEL} people{RLO}").text == "four people"


def test_an_api_turn_is_stored_as_plain_text() -> None:
    from pydantic import ValidationError

    from monologue.pipeline.text_rooms import ChatRequest

    assert ChatRequest(text=f"{ESC}]0;owned{BEL}my door code is {RLO}1234").text == "]0;owned my door code is 1234"
    with pytest.raises(ValidationError, match="no visible characters"):
        ChatRequest(text=f"{ZWSP}{RLO} {ESC}")


def test_a_memory_is_written_as_plain_text(tmp_path: Path) -> None:
    from monologue.memory.longterm.stream import MemoryStream
    from monologue.memory.stores.memories import SqlMemoryStore

    stream = MemoryStream(SqlMemoryStore(tmp_path / "mem.db"), "ann")
    stream.add(f"My door code is {RLO}4321{PDF} {ESC}[8m(hidden){ESC}[0m")
    reopened = MemoryStream(SqlMemoryStore(tmp_path / "mem.db"), "ann")
    texts = [r.text for r in reopened.records()[0]]
    assert texts == ["My door code is 4321 [8m(hidden) [0m"], texts


# ---------------------------------------------------------------------------------------------
# Printing what a store holds

def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "monologue.pipeline.cli", *args], cwd=ROOT,
                          env=env or dict(os.environ), capture_output=True, text=True, timeout=300)


def test_memory_list_never_prints_a_stored_escape(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A row written before plain text existed (or by another tool) still holds the escapes:
    `memory list` and `memory show` print them as visible escapes, never to the terminal."""
    import monologue.memory.stores.memories as memories
    from monologue.memory.longterm.stream import MemoryStream

    monkeypatch.setattr(memories, "plain_text", lambda text: text)     # an old row, written raw
    store = tmp_path / "mem.db"
    record = MemoryStream(memories.SqlMemoryStore(store), "ann").add(
        f"I live at {RLO}12 Elm{PDF} Street{ESC}[2J{BEL}")
    for args in (("memory", "list", "--user", "ann"), ("memory", "show", record.id, "--user", "ann")):
        result = _cli(*args, "--store", str(store))
        assert result.returncode == 0, result.stderr
        assert not any(ch in result.stdout for ch in TERMINAL_ACTORS), repr(result.stdout)
        assert "\\u202e12 Elm\\u202c Street\\u001b[2J\\u0007" in result.stdout, result.stdout


# ---------------------------------------------------------------------------------------------
# Private files

def test_a_sessions_files_are_this_users_only(tmp_path: Path) -> None:
    from monologue.pipeline.audio_io import WavRecorder, write_wav
    from monologue.pipeline.report import write_report
    from monologue.processors.trace import TraceWriter

    old_umask = os.umask(0o022)                 # the usual one: files 0644 unless made private
    try:
        out = tmp_path / "out" / "session-1"
        writer = TraceWriter(out)
        writer.close()
        write_wav(out / "reply.wav", np.zeros(160, np.int16), 16000)
        recorder = WavRecorder(out / "heard.wav", 16000)
        recorder.put(np.zeros(160, np.int16))
        recorder.close()
        write_report(out / "trace.jsonl")
        # A continued session appends: a file an older version left 0644 becomes private too.
        (out / "transcript.txt").chmod(0o644)
        TraceWriter(out, append=True).close()
    finally:
        os.umask(old_umask)
    assert _mode(out) == 0o700
    for name in ("trace.jsonl", "transcript.txt", "reply.wav", "heard.wav", "report.html"):
        assert _mode(out / name) == 0o600, (name, oct(_mode(out / name)))


def test_a_key_file_others_can_read_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from monologue.memory.longterm.stream import MemoryStream
    from monologue.memory.stores.memories import SqlMemoryStore
    from monologue.memory.stores.sealing import KEY_ENV, KEY_FILE_ENV, StoreKeyError, find_keys

    key_file = tmp_path / "keys" / "store.key"
    env = {KEY_FILE_ENV: str(key_file)}
    cli_env = {k: v for k, v in os.environ.items() if k != KEY_ENV} | env
    store = tmp_path / "mem.db"
    monkeypatch.setenv(KEY_FILE_ENV, str(key_file))
    monkeypatch.delenv(KEY_ENV, raising=False)
    MemoryStream(SqlMemoryStore(store), "ann").add("I'm allergic to peanuts.")
    assert _mode(key_file) == 0o600
    key = find_keys(env).keys
    listed = _cli("memory", "list", "--user", "ann", "--store", str(store), env=cli_env)
    assert listed.returncode == 0 and "peanuts" in listed.stdout, listed.stdout + listed.stderr

    key_file.chmod(0o644)
    with pytest.raises(StoreKeyError, match=r"chmod 600 .*store\.key"):
        find_keys(env)
    # The command line says it in one line, exit 2, and shows nothing; the store is as it was.
    refused = _cli("memory", "list", "--user", "ann", "--store", str(store), env=cli_env)
    assert refused.returncode == 2 and "chmod 600" in refused.stderr and "Traceback" not in refused.stderr
    assert "peanuts" not in refused.stdout
    key_file.chmod(0o600)
    assert find_keys(env).keys == key
    again = _cli("memory", "list", "--user", "ann", "--store", str(store), env=cli_env)
    assert again.returncode == 0 and "1 memories" in again.stdout and "peanuts" in again.stdout, again.stdout
