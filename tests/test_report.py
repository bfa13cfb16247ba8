"""The session report (E4): a trace.jsonl read back into one self-contained HTML page."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from monologue.pipeline.cli import main
from monologue.pipeline.report import read_trace, write_report
from monologue.pipeline.report.timeline import build_timeline

from fakes import ROOT

SESSION = "s-report-test"


def _condition(key: str, value: Any, words: str, turn: int, comparator: str = "=",
               multi: bool = False) -> dict[str, Any]:
    """An active, unconfirmed condition (a test changes its status with `dict(condition, status=...)`)."""
    return {"key": key, "comparator": comparator, "value": value, "words": words, "turn": turn,
            "asr_confidence": 0.9, "status": "active", "confirmed": False, "last_mentioned": turn, "multi": multi}


def _state(version: int, turn: int, constraints: dict[str, dict[str, Any]], goal: str = "book a table") -> dict:
    return {"format": 1, "session_id": SESSION, "domain": "restaurant", "version": version, "turn": turn,
            "goal": goal, "constraints": constraints, "pending": [], "updated_at": 1795000000.0 + turn,
            "last_turn_action": "Hi! Anything I should know?" if turn == 0 else "…"}


def _updated(before: dict, after: dict, operations: list[dict]) -> dict[str, Any]:
    """A trace line's monologue part for a turn that changed the state."""
    return {"text": "…", "version": after["version"], "operations": operations,
            "rejected": [], "state_before": before, "state_after": after, "diff": {}}


def _skipped(reason: str) -> dict[str, Any]:
    """A trace line's monologue part for a turn that left the state alone."""
    return {"text": "", "skipped": True, "reason": reason}


def _line(turn: int, said: str, reply: str, monologue: dict[str, Any], *, memories: list[str] | None = None,
          latency: dict[str, float] | None = None, barge_in: dict | None = None) -> dict[str, Any]:
    start = 10.0 * turn
    line = {"v": 1, "turn": turn,
            "vad": {"engine": "silero", "start_secs": start, "end_secs": start + 2.0, "turn_end_wait_secs": 0.5},
            "asr": {"text": said, "language": "en", "confidence": 0.8},
            "turn_class": "chit_chat" if monologue.get("skipped") else "information_change",
            "classifier": {}, "monologue": monologue,
            "memories": {"recalled": memories or [], "ms": 4.0, "timed_out": False},
            "reply": {"model": "m", "state_version": 1, "text": reply, "error": "", "decision": {"act": "ask"},
                      "source": "template", "check": []},
            "tts": {"session_start_secs": start + 3.5, "audio_secs": 2.0},
            "latency_ms": latency if latency is not None else
            {"turn_end_wait": 500.0, "asr_done": 300.0, "monologue_done": 310.0, "llm_first_token": 900.0,
             "first_audio": 1100.0, "voice_to_voice": 1600.0},
            "compute_ms": {}}
    if barge_in is not None:
        line["barge_in"] = barge_in
    return line


def _fixture_lines() -> list[dict[str, Any]]:
    """Five turns: party size set then replaced, budget set then withdrawn, spicy set then expired."""
    four = _condition("party_size", 4, "four people", 1)
    budget = _condition("budget", 300, "under 300", 1, comparator="<=")
    spicy = _condition("dietary", "spicy", "nothing spicy", 1, comparator="excludes", multi=True)
    s0 = _state(1, 0, {}, goal="")
    s1 = _state(2, 1, {"party_size": four, "budget": budget, "dietary:spicy": spicy})
    six = _condition("party_size", 6, "six people", 3)
    s3 = _state(4, 3, {"party_size": six, "budget": budget, "dietary:spicy": spicy})
    doubt = dict(spicy, status="to_confirm")
    s4 = _state(5, 4, {"party_size": six, "dietary:spicy": doubt})
    s5 = _state(6, 5, {"party_size": dict(six, confirmed=True)})
    return [
        _line(1, "A table for four, under 300, nothing spicy.", "What time?",
              _updated(s0, s1, [{"op": "set", "key": "party_size", "value": 4}])),
        _line(2, "Lovely weather.", "It is! Shall I look for a table for four people at seven?", _skipped("chit-chat"),
              barge_in={"cut": True, "by_turn": 5, "cut_at_secs": 24.1, "spoken": "It is! Shall I look",
                        "unspoken": "for a table for four people at seven?", "stop_ms": 120.0}),
        _line(3, "Actually, make it six people.", "Six it is.",
              _updated(s1, s3, [{"op": "set", "key": "party_size", "value": 6, "correction": True}]),
              latency={"turn_end_wait": 500.0, "monologue_done": 20.0, "first_audio": 700.0,
                       "voice_to_voice": 1200.0}),
        _line(4, "Forget the budget.", "Done.", _updated(s3, s4, [{"op": "withdraw", "key": "budget"}]),
              memories=["Dana likes a window seat."]),
        _line(5, "Yes.", "Booked.", _updated(s4, s5, [{"op": "confirm"}])),
    ]


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    path = tmp_path / "out" / "trace.jsonl"
    path.parent.mkdir()
    lines = [json.dumps(line) for line in _fixture_lines()]
    # Malformed lines, as a crash, a hand edit or a foreign writer leaves them.
    lines.insert(2, "{\"v\": 1, \"turn\": 9, \"asr\": {\"te")
    lines.insert(3, "[1, 2, 3]")
    lines.insert(4, json.dumps({"v": 1, "turn": "three"}))
    lines.append(json.dumps({"v": 1, "turn": 6, "asr": "not a section", "reply": {"text": "Bye."}}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _spans(path: Path) -> dict[str, list[tuple[int, int | None, str]]]:
    timeline = build_timeline(read_trace(path))
    return {lane.slot: [(s.start, s.end, s.ending) for s in lane.spans] for lane in timeline.lanes}


def test_lanes_start_and_end_where_conditions_were_set_replaced_withdrawn_and_expired(trace):
    spans = _spans(trace)
    assert spans["party_size"] == [(1, 3, "replaced"), (3, None, "holds")]
    assert spans["budget"] == [(1, 4, "withdrawn")]
    assert spans["dietary:spicy"] == [(1, 5, "expired")]
    assert spans["goal"] == [(1, None, "holds")]
    timeline = build_timeline(read_trace(trace))
    party = next(lane for lane in timeline.lanes if lane.slot == "party_size")
    assert party.spans[0].words == "four people" and party.spans[0].ended_by == "Actually, make it six people."
    assert [(m.turn, m.kind) for m in party.spans[1].marks] == [(5, "confirmed")]


def test_report_page_has_transcript_lanes_memories_and_a_waterfall_per_turn(trace):
    page_path = write_report(trace)
    assert page_path == trace.with_name("report.html")
    page = page_path.read_text(encoding="utf-8")
    assert "A table for four, under 300, nothing spicy." in page and "Booked." in page
    assert "Hi! Anything I should know?" in page                    # the opening, from the first state
    assert "00:10.0" in page and "00:13.5" in page                  # user and agent on the session clock
    # The cut reply: what was spoken, and the rest struck through.
    assert re.search(r"It is! Shall I look <del class=\"unspoken\"[^>]*>for a table for four", page)
    assert "cut by the user at 00:24.1, speaking over it" in page and "120 ms" in page
    assert page.count('data-slot="party_size"') == 2
    assert 'data-slot="budget" data-start="1" data-end="4" data-ending="withdrawn"' in page
    assert 'data-slot="dietary:spicy" data-start="1" data-end="5" data-ending="expired"' in page
    assert "“four people”" in page and "“under 300”" in page
    # A recalled memory by what it means; the words it was kept from on hover.
    assert '<li title="kept from: Dana likes a window seat.">window seating</li>' in page
    rows = re.findall(r'<div class="wf-row" data-turn="(\d+)"', page)
    assert rows == ["1", "2", "3", "4", "5", "6"]
    # Turn 3 measured no transcript and called no model: said so, not drawn as zero; its time
    # after the state update is the reply and its speech, not a "first audio" bar.
    turn3 = page.split('data-turn="3"')[1].split('data-turn="4"')[0]
    assert "transcript time not measured" in turn3 and 'data-stage="transcript"' not in turn3
    assert 'data-stage="reply_voice"' in turn3 and "reply worded by rules, then speech" in turn3
    assert "first audio" not in page and "ASR" not in page
    assert "1.60 s over 5 turns" in page
    # Self-contained: nothing fetched from anywhere.
    assert not re.search(r"(src|href)=\"(https?:)?//", page) and "<script" not in page and "@import" not in page


def test_malformed_lines_are_skipped_with_a_note(trace):
    session = read_trace(trace)
    assert [t.number for t in session.turns] == [1, 2, 3, 4, 5, 6]
    notes = "\n".join(session.notes)
    assert "line 3 skipped: not JSON" in notes
    assert "line 4 skipped: a list" in notes
    assert "line 5 skipped" in notes and "no turn number" in notes
    assert "section 'asr' is a str" in notes
    page = write_report(trace).read_text(encoding="utf-8")
    assert "Notes on the trace" in page and "line 3 skipped" in page


def test_odd_traces_still_give_a_page(tmp_path):
    empty = tmp_path / "empty" / "trace.jsonl"
    empty.parent.mkdir()
    empty.write_text("")
    assert "No turn could be read" in write_report(empty).read_text(encoding="utf-8")
    missing = write_report(tmp_path / "gone" / "trace.jsonl", tmp_path / "gone.html")
    assert "could not be read" in missing.read_text(encoding="utf-8")
    newer = tmp_path / "newer.jsonl"
    newer.write_text(json.dumps({"v": 99, "turn": 1, "asr": {"text": "hello"}, "future": {"x": 1}}) + "\n")
    page = write_report(newer, tmp_path / "newer.html").read_text(encoding="utf-8")
    assert "hello" in page and "newer trace format" in page


def test_a_session_line_names_the_session_and_keeps_the_whole_opening(tmp_path):
    path = tmp_path / "trace.jsonl"
    header = {"v": 1, "session": {"id": "room-7", "started_at": "2026-11-23T19:00:00", "opening": "Hello there!"}}
    path.write_text(json.dumps(header) + "\n" + json.dumps(_fixture_lines()[0]) + "\n")
    session = read_trace(path)
    assert session.session_id == "room-7" and session.opening == "Hello there!"
    assert session.started_at is not None and session.started_at.year == 2026 and not session.notes


def test_fifty_turns_report_in_well_under_a_second(tmp_path):
    lines = _fixture_lines()
    many = [dict(lines[i % len(lines)], turn=i + 1) for i in range(50)]
    path = tmp_path / "trace.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in many) + "\n")
    started = time.perf_counter()
    write_report(path)
    assert time.perf_counter() - started < 1.0      # measured ~10 ms; generous under load


def test_cli_report_writes_the_page(trace, tmp_path, capsys):
    out = tmp_path / "page.html"
    assert main(["report", str(trace), "-o", str(out)]) == 0
    assert out.is_file() and f"report: {out}" in capsys.readouterr().out
    assert main(["report", str(trace.parent)]) == 0                # the session folder works too
    assert (trace.parent / "report.html").is_file()
    assert main(["report", str(tmp_path / "nothing-here")]) == 2
    assert "no trace at" in capsys.readouterr().err


@pytest.mark.slow
def test_report_from_a_chat_run(tmp_path):
    """A real trace: `monologue chat` with the fake LLM, then `monologue report` on its folder."""
    script = tmp_path / "script.txt"
    script.write_text("Table for four on Saturday at 7 pm, budget under 300 dollars.\nNice weather.\n"
                      "Actually, make it six people instead of four.\nForget the budget.\nYes.\n")
    env = dict(os.environ, MONOLOGUE__LLM__MODEL="openai/gpt-4o-mini", MONOLOGUE__LLM__FALLBACK="null",
               MONOLOGUE__LLM__MOCK_RESPONSE="Okay.", MONOLOGUE__MONOLOGUE__LLM_MODE="never")
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "monologue.pipeline.cli", "chat", "--script", str(script),
                          "--out", str(out), "--store", str(tmp_path / "s.db"), "--user", "none"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert main(["report", str(out)]) == 0
    (trace,) = out.glob("*/trace.jsonl")
    spans = _spans(trace)
    assert spans["party_size"] == [(1, 3, "replaced"), (3, None, "holds")]
    assert spans["budget"] == [(1, 4, "withdrawn")]
    page = (trace.parent / "report.html").read_text(encoding="utf-8")
    assert "Nice weather." in page and "state not updated (chit-chat)" in page
    assert len(re.findall(r'<div class="wf-row" data-turn=', page)) == 5
    assert not read_trace(trace).notes


CHROMIUM = Path("/usr/bin/chromium")


def test_report_renders_lanes_and_waterfall_in_chromium(trace):
    """The page as a browser lays it out: every lane's bars and every turn's waterfall have size."""
    if not CHROMIUM.exists():
        pytest.skip("no /usr/bin/chromium (Debian package 'chromium'): the browser check cannot run")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright Python package is not installed")
    page_path = write_report(trace)
    with sync_api.sync_playwright() as runner:
        browser = runner.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 900})
            fetched: list[str] = []
            page.on("request", lambda request: fetched.append(request.url))
            page.goto(page_path.as_uri())
            assert fetched == [page_path.as_uri()]          # self-contained: nothing else was asked for
            spans = page.locator(".timeline .span")
            assert spans.count() == 5              # goal, party size 4 and 6, budget, spicy
            boxes = [spans.nth(i).bounding_box() for i in range(spans.count())]
            assert all(box and box["width"] > 20 and box["height"] > 20 for box in boxes)
            budget = page.locator('.span[data-slot="budget"]').bounding_box()
            party = page.locator('.span[data-slot="party_size"]').first.bounding_box()
            assert budget and party and budget["width"] > party["width"]   # turns 1–3 against 1–2
            bars = page.locator(".wf-track .bar")
            assert bars.count() >= 5 * 3
            assert all((bars.nth(i).bounding_box() or {"width": 0})["width"] > 0 for i in range(bars.count()))
            assert page.locator(".wf-row[data-turn]").count() == 6
            assert page.locator("del.unspoken").is_visible()
        finally:
            browser.close()


def _paths(obj: Any, prefix: tuple = ()) -> list[tuple]:
    found: list[tuple] = []
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else []
    for key, value in items:
        found.append((*prefix, key))
        found.extend(_paths(value, (*prefix, key)))
    return found


def test_no_field_of_any_shape_breaks_the_report(tmp_path):
    """Any field of any line set to a value of another type (NaN included) still gives a page."""
    import copy
    import random

    lines = _fixture_lines()
    odd = [None, -1, float("nan"), float("inf"), "x", [], {}, True, [1, "a"], {"a": {"b": 1}}]
    cases = [(index, path, value) for index, line in enumerate(lines) for path in _paths(line) for value in odd]
    path = tmp_path / "trace.jsonl"
    for index, field_path, value in random.Random(11).sample(cases, 400):
        mutated = copy.deepcopy(lines)
        target = mutated[index]
        for key in field_path[:-1]:
            target = target[key]
        target[field_path[-1]] = value
        path.write_text("\n".join(json.dumps(line) for line in mutated) + "\n")
        assert "</html>" in write_report(path).read_text(encoding="utf-8"), (index, field_path, value)


# --- cuts, the opening and the waterfall, told as they happened --------------------------------

def _voice_turn(number: int, said: str, reply: str, start: float) -> Any:
    from monologue.processors.frames import Transcription, Turn

    turn = Turn(turn_id=number, start_pts=start, end_pts=start + 1.5, end_wait_secs=0.4, detected_at=100.0 + number,
                vad_engine="silero")
    turn.asr = Transcription(text=said, language="en", confidence=0.9)
    turn.reply.text = reply
    turn.tts.session_start_secs = start + 2.2
    return turn


async def test_a_cut_opening_and_a_reply_the_user_went_on_from_agree_in_transcript_trace_and_report(tmp_path):
    """The opening the user spoke over, and a reply that never began because the user went on:
    transcript.txt, trace.jsonl and the report tell each the same way (as the room page does)."""
    from pipecat.tests.utils import run_test

    from monologue.processors.frames import AgentTurnEndFrame, BargeIn, Turn
    from monologue.processors.trace import TraceWriter

    opening = Turn(turn_id=0, start_pts=0.0, end_pts=0.0, end_wait_secs=0.0, detected_at=99.0, vad_engine="opening")
    opening.reply.text = "Welcome back! Last time you booked Sakura for two. Shall I do that again?"
    opening.barge_in = BargeIn(cut=True, by_turn=1, heard_at_secs=2.1, cut_at_secs=2.2, stop_ms=110.0,
                               spoken="Welcome back! Last time you booked",
                               unspoken="Sakura for two. Shall I do that again?")
    first = _voice_turn(1, "No, something new.", "What would you like?", 2.0)
    first.barge_in = BargeIn(cut=True, by_turn=2, unspoken="What would you like?")   # never began: 0 ms to stop
    second = _voice_turn(2, "Italian, for four.", "Italian for four, noted.", 6.0)
    writer = TraceWriter(tmp_path)
    await run_test(writer, frames_to_send=[AgentTurnEndFrame(turn=t) for t in (opening, first, second)])

    transcript = (tmp_path / "transcript.txt").read_text(encoding="utf-8").splitlines()
    assert transcript[0] == ("[00:00.0] agent (opening): Welcome back! Last time you booked [cut by the user at "
                             "00:02.2, speaking over it; not said: Sakura for two. Shall I do that again?]")
    assert "[00:04.2] agent: (not said: the user went on) [worded: What would you like?]" in transcript
    assert sum("agent:" in line for line in transcript) == 2       # the opening is not counted as a reply
    lines = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    assert [line["turn"] for line in lines] == [1, 2]               # a line per user turn, still
    assert lines[0]["opening"]["spoken"] == "Welcome back! Last time you booked" and "opening" not in lines[1]
    page = write_report(tmp_path / "trace.jsonl").read_text(encoding="utf-8")
    assert re.search(r"Welcome back! Last time you booked <del class=\"unspoken\"[^>]*>Sakura for two\. Shall I do "
                     r"that again\?</del>", page)
    assert "✂ cut by the user at 00:02.2, speaking over it" in page
    turn1 = page.split('id="turn-1"')[1].split('id="turn-2"')[0]
    assert "(not said: the user went on)" in turn1 and "cut by the user" not in turn1
    assert re.search(r"<del class=\"unspoken\"[^>]*>What would you like\?</del>", turn1)
    assert page.split("barge-ins")[1].startswith("</span><b>2</b>")         # the opening's cut counts too


def test_the_waterfall_says_what_a_turn_did_and_did_not_do(tmp_path):
    """A drafted turn whose transcript was ready during the pause is not "ASR 0 ms"; its stages
    start where the agent began (the draft), not after the whole turn-end wait; a policy-worded
    turn's last stage is its reply and speech, not a long red "first audio"; a typed turn says
    it had no silence, recognition or voice."""
    line = _fixture_lines()[0]
    drafted = dict(line, turn=1, turn_end={"drafted": True},
                   latency_ms={"turn_end_wait": 360.0, "start_wait": 160.0, "asr_done": 2.0, "asr_after_speech": 20.0,
                               "monologue_done": 90.0, "first_audio": 800.0, "voice_to_voice": 960.0})
    typed = dict(line, turn=2, vad={"engine": "text"}, asr={"text": "Hello.", "source": "text"},
                 latency_ms={"turn_end_wait": 0.0, "start_wait": 0.0, "monologue_done": 5.0})
    path = tmp_path / "trace.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in (drafted, typed)) + "\n")
    page = write_report(path).read_text(encoding="utf-8")
    one = page.split('<div class="wf-row" data-turn="1"')[1].split('<div class="wf-row" data-turn="2"')[0]
    assert "transcript, done during the pause 20 ms" in one and "ASR" not in one
    assert 'class="bar parallel" data-stage="transcript" style="left:0.00%' in one
    # The state update ran from the draft's start (160 ms) + its transcript (2 ms): 162 → 250 ms.
    state = re.search(r'data-stage="state" style="left:([\d.]+)%;width:([\d.]+)%', one)
    assert state and float(state.group(1)) == pytest.approx(162 / 960 * 100, abs=0.01)
    assert 'data-stage="reply_voice"' in one and "#e15759" not in page
    assert "started after a 160 ms pause, before the turn&#x27;s end was sure (at 360 ms)" in one
    two = page.split('<div class="wf-row" data-turn="2"')[1]
    assert "typed: no silence, speech recognition or voice" in two and 'data-stage="silence"' not in two


def test_recalled_memories_read_as_their_meaning(tmp_path):
    line = dict(_fixture_lines()[0], memories={"recalled": ["at eight in the evening place.", "My wife loves jazz."]})
    path = tmp_path / "trace.jsonl"
    path.write_text(json.dumps(line) + "\n")
    page = write_report(path).read_text(encoding="utf-8")
    assert '<li title="kept from: at eight in the evening place.">at 8 pm</li>' in page
    assert "“My wife loves jazz”" in page          # the rules read nothing here: the user's words, quoted


def test_an_opening_section_of_any_shape_still_gives_a_page(tmp_path):
    path = tmp_path / "trace.jsonl"
    odd: Any
    for odd in (None, "x", [], {"text": 3}, {"text": "Hi!", "cut": "yes", "stop_ms": "fast", "spoken": ["a"]},
                {"text": "Hi there!", "cut": True, "unspoken": None}):
        path.write_text(json.dumps(dict(_fixture_lines()[0], opening=odd)) + "\n")
        assert "</html>" in write_report(path).read_text(encoding="utf-8"), odd


def test_only_a_models_own_first_token_is_drawn_as_the_models_time():
    from monologue.pipeline.report.latency import breakdown

    base = {"turn_end_wait": 400.0, "asr_done": 100.0, "monologue_done": 150.0, "first_audio": 700.0,
            "voice_to_voice": 1100.0}

    def stages(**marks: float) -> list[tuple[str, float, float]]:
        return [(s.name, s.start_ms, s.end_ms) for s in breakdown({**base, **marks}).stages]

    assert stages(llm_first_token=500.0, llm_first_clause=600.0) == [
        ("silence", 0.0, 400.0), ("transcript", 400.0, 500.0), ("state", 500.0, 550.0), ("model", 550.0, 900.0),
        ("voice", 900.0, 1100.0)]
    assert [name for name, _, _ in stages(llm_first_clause=160.0)][-2:] == ["words", "voice"]   # the rules' clause
    assert [name for name, _, _ in stages()][-1] == "reply_voice"                               # policy wording
