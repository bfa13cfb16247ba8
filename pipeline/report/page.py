"""The report as one self-contained HTML page: inline CSS, no script, no fonts or files fetched.

Layout is plain HTML and CSS grid (no SVG, no JavaScript) so the page prints, reads
without a network and is checked by a browser test through ordinary element boxes.
Every text from the trace is escaped; hover titles carry what a narrow box cuts off.
"""

from __future__ import annotations

import statistics
from html import escape
from typing import TYPE_CHECKING, Any

from monologue.pipeline.report.latency import STAGE_COLOURS, STAGE_LABELS, Breakdown, breakdown, seconds
from monologue.pipeline.report.reading import BargeIn, SessionTrace, TurnView
from monologue.pipeline.report.style import CSS
from monologue.pipeline.report.timeline import Lane, Span, Timeline, build_timeline
from monologue.pipeline.report.words import memory_meaning

if TYPE_CHECKING:
    from monologue.memory.domain.schema import DomainSchema

MARK_GLYPHS = {"confirmed": "✓", "to_confirm": "?", "reaffirmed": "!"}

ENDINGS = {"replaced": "replaced", "withdrawn": "withdrawn", "expired": "expired",
           "removed": "removed", "holds": "still held at the end"}


def render_page(session: SessionTrace) -> str:
    timeline = build_timeline(session)
    body = "\n".join((_header(session), _transcript(session), _timeline(session, timeline),
                      _memories(session), _waterfall(session), _notes(session)))
    title = f"Monologue session {session.session_id or session.path.parent.name}"
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{escape(title)}</title><style>{CSS}</style></head>\n<body>\n{body}\n</body></html>\n")


def clock(secs: float | None) -> str:
    """mm:ss.s on the session timeline (as transcript.txt writes it)."""
    if secs is None:
        return ""
    minutes, seconds = divmod(max(secs, 0.0), 60)
    return f"{int(minutes):02d}:{seconds:04.1f}"


def _header(session: SessionTrace) -> str:
    voice = [t.latency_ms["voice_to_voice"] for t in session.turns if "voice_to_voice" in t.latency_ms
             and not (t.barge_in is not None and t.barge_in.unstarted)]      # a reply never said was never heard
    median = statistics.median(voice) if voice else None
    cuts = sum(1 for t in session.turns if t.barge_in is not None and t.barge_in.shown) \
        + (session.opening_barge_in is not None and session.opening_barge_in.shown)
    updates = sum(1 for t in session.turns if t.update is not None)
    recalled = sum(1 for t in session.turns if _recalled(t))
    facts = [("session", session.session_id or "unknown"),
             ("date", session.started_at.strftime("%Y-%m-%d %H:%M") if session.started_at else "unknown"),
             ("turns", str(len(session.turns))),
             ("median voice-to-voice", seconds(median) + (f" over {len(voice)} turns" if voice else "")),
             ("state updates", f"{updates} of {len(session.turns)} turns"),
             ("barge-ins", str(cuts)),
             ("turns with memories", str(recalled))]
    if session.domain:
        facts.insert(2, ("domain", session.domain))
    cards = "".join(f"<div class=\"fact\"><span>{escape(k)}</span><b>{escape(v)}</b></div>" for k, v in facts)
    warn = (f"<p class=\"warn\">{len(session.notes)} line(s) of the trace could not be shown in full: "
            f"see <a href=\"#notes\">notes</a>.</p>") if session.notes else ""
    return (f"<header><h1>Monologue session report</h1><p class=\"src\">{escape(str(session.path))}</p>"
            f"<div class=\"facts\">{cards}</div>{warn}</header>")


def _transcript(session: SessionTrace) -> str:
    rows: list[str] = []
    if session.opening:
        text, cut = _said_html(session.opening, session.opening_barge_in, opening=True)
        said = "opening" + (" (its first 200 characters, as working memory kept it)" if session.opening_cut else "")
        rows.append(_line("agent", "00:00.0" if session.timed else "", text,
                          " · ".join(part for part in (cut, escape(said)) if part), "", raw_meta=True))
    for turn in session.turns:
        heard = turn.user_text or ("(not understood: " + turn.asr_error + ")" if turn.asr_error else "(nothing heard)")
        meta = [f"turn {turn.number}"]
        if turn.heard_confidence is not None and session.timed:
            meta.append(f"heard with confidence {turn.heard_confidence:.2f}")
        if turn.turn_class:
            meta.append(turn.turn_class.replace("_", " "))
        if turn.monologue_skipped:
            meta.append(f"state not updated ({turn.monologue_skipped})")
        elif turn.monologue_error:
            meta.append(f"state update failed: {turn.monologue_error}")
        elif turn.update is not None and turn.update.version is not None:
            meta.append(f"state → v{turn.update.version}")
        rows.append(_line("user", clock(turn.start_secs), escape(heard), " · ".join(meta), f"turn-{turn.number}"))
        rows.append(_agent_line(turn))
    if not session.turns:
        rows.append("<p class=\"empty\">No turn could be read from this trace.</p>")
    return f"<section id=\"transcript\"><h2>Transcript</h2><div class=\"transcript\">{''.join(rows)}</div></section>"


def _agent_line(turn: TurnView) -> str:
    at = clock(turn.reply_at_secs)
    if at and turn.reply_at_estimated:
        at = "≈" + at
    if turn.barge_in is not None and turn.barge_in.unstarted:
        at = clock(turn.barge_in.cut_at_secs)      # never played: no time it was heard at
    meta = []
    if turn.act:
        meta.append(turn.act.replace("_", " "))
    if turn.reply_source and turn.reply_source != "cancelled":     # cancelled: the cut says why
        meta.append(f"worded by {turn.reply_source}")
    if turn.state_version is not None:
        meta.append(f"built on state v{turn.state_version}")
    if turn.barge_in is not None and turn.barge_in.shown:
        text, cut = _said_html(turn.reply_text, turn.barge_in)
        return _line("agent", at, text, " · ".join([cut, *(escape(m) for m in meta)]), "", raw_meta=True)
    if turn.reply_error:
        return _line("agent", at, f"<span class=\"err\">(no reply: {escape(turn.reply_error)})</span>",
                     " · ".join(meta), "")
    if turn.turn_class == "backchannel":
        return _line("agent", at, "<span class=\"quiet\">(a backchannel over the agent: not answered; "
                     "the agent went on where it paused)</span>", " · ".join(meta), "")
    if not turn.reply_text:
        return _line("agent", at, "<span class=\"quiet\">(no reply)</span>", " · ".join(meta), "")
    return _line("agent", at, escape(turn.reply_text), " · ".join(meta), "")


def _said_html(text: str, cut: BargeIn | None, *, opening: bool = False) -> tuple[str, str]:
    """A reply as heard, and a note on how it was cut (HTML), as transcript.txt tells it: a
    reply the user went on from (over the opening: spoke first) before its voice began was not
    said at all; one they spoke over was cut where they did, the rest struck through."""
    if cut is None or not cut.shown:
        return escape(text), ""
    where = f" at {clock(cut.cut_at_secs)}" if cut.cut_at_secs is not None else ""
    if cut.unstarted:
        worded = cut.unspoken or text
        never = f" <del class=\"unspoken\" title=\"worded, never spoken\">{escape(worded)}</del>" if worded else ""
        why = "the user spoke first" if opening else "the user went on"
        return (f"<span class=\"quiet\">(not said: {why})</span>{never}",
                f"<span class=\"cut went-on\">not said: {why}{where}, before its voice began</span>")
    never = f"<del class=\"unspoken\" title=\"worded, never spoken\">{escape(cut.unspoken)}</del>"
    stop = f"; the voice stopped {cut.stop_ms:.0f} ms after the user began" if cut.stop_ms is not None else ""
    return (f"{escape(cut.spoken)} {never}",
            f"<span class=\"cut\">✂ cut by the user{where}, speaking over it{stop}</span>")


def _line(who: str, at: str, html_text: str, meta: str, anchor: str, raw_meta: bool = False) -> str:
    anchor_attr = f" id=\"{anchor}\"" if anchor else ""
    shown_meta = meta if raw_meta else escape(meta)
    return (f"<div class=\"line {who}\"{anchor_attr}><time>{escape(at)}</time><span class=\"who\">{who}</span>"
            f"<div class=\"said\">{html_text}<div class=\"meta\">{shown_meta}</div></div></div>")


def _timeline(session: SessionTrace, timeline: Timeline) -> str:
    if not timeline.lanes:
        return ("<section id=\"timeline\"><h2>State timeline</h2><p class=\"empty\">No condition was set "
                "in this session (or no turn carried working memory's state).</p></section>")
    first, last = timeline.first_turn, timeline.last_turn
    columns = last - first + 1
    by_number = {t.number: t for t in session.turns}
    cells = ["<div class=\"lane-name axis\">turn</div>"]
    for number in range(first, last + 1):
        turn = by_number.get(number)
        kind, title = _column_kind(number, turn)
        cells.append(f"<div class=\"tick {kind}\" style=\"grid-column:{number - first + 2}\" "
                     f"title=\"{escape(title)}\">{number if number else 'start'}</div>")
    for row, lane in enumerate(timeline.lanes, 2):
        cells.append(f"<div class=\"lane-name\" style=\"grid-row:{row}\" title=\"{escape(lane.slot)}\">"
                     f"{escape(lane.title)}</div>")
        cells.extend(_span(span, lane, row, first, last) for span in lane.spans)
    grid = (f"<div class=\"timeline\" style=\"grid-template-columns: 11rem repeat({columns}, minmax(2.2rem, 1fr))\">"
            f"{''.join(cells)}</div>")
    legend = ("<p class=\"legend\">Each bar is one value of a condition, from the turn that set it to the last "
              "turn it held. Ends: <span class=\"end replaced\">→ replaced</span> "
              "<span class=\"end withdrawn\">✕ withdrawn</span> <span class=\"end expired\">◷ expired</span> "
              "<span class=\"end holds\">▸ still held</span>; ✓ confirmed, ? waiting to be confirmed, "
              "! said again while it waited. Turn numbers: bold where working memory updated the state; "
              "hover a bar or a turn number for the words.</p>")
    return (f"<section id=\"timeline\"><h2>State timeline</h2>{legend}{grid}"
            f"{_changes_table(timeline)}</section>")


def _column_kind(number: int, turn: TurnView | None) -> tuple[str, str]:
    if turn is None:
        return "none", "before the first turn" if number == 0 else f"turn {number}: not in the trace"
    if turn.update is not None:
        return "updated", f"turn {number}: {turn.user_text}"
    if turn.monologue_error:
        return "failed", f"turn {number} (state update failed): {turn.user_text}"
    return "skipped", f"turn {number} ({turn.monologue_skipped or 'no update'}): {turn.user_text}"


def _span(span: Span, lane: Lane, row: int, first: int, last: int) -> str:
    start = span.start - first + 2
    end = (span.end if span.end is not None else last + 1) - first + 2
    width = max(end - start, 1)
    marks = []
    by_turn: dict[int, list[str]] = {}
    for mark in span.marks:
        by_turn.setdefault(mark.turn, []).append(mark.kind)
    for at, kinds in by_turn.items():
        if "confirmed" in kinds and "reaffirmed" in kinds:
            kinds.remove("reaffirmed")      # a confirmation is a reaffirmation: one mark says both
        left = (at - span.start + 0.5) / width * 100
        glyphs = "".join(MARK_GLYPHS[kind] for kind in kinds)
        said = ", ".join(kind.replace("_", " ") for kind in kinds)
        marks.append(f"<i class=\"mark {kinds[-1]}\" style=\"left:{left:.1f}%\" "
                     f"title=\"{escape(said)} at turn {at}\">{glyphs}</i>")
    words = f"“{escape(span.words or span.said)}”" if span.words or span.said else ""
    if span.origin == "before":
        words = "from before this session"
    elif span.origin == "between":
        words = f"after the reply: {words}"
    return (f"<div class=\"span end-{span.ending}{' goal' if lane.slot == 'goal' else ''}\" "
            f"style=\"grid-row:{row};grid-column:{start} / span {width}\" data-slot=\"{escape(span.slot)}\" "
            f"data-start=\"{span.start}\" data-end=\"{'' if span.end is None else span.end}\" "
            f"data-ending=\"{span.ending}\" title=\"{escape(_span_story(span))}\">"
            f"<b>{escape(span.value)}</b> <span class=\"words\">{words}</span>{''.join(marks)}</div>")


def _span_story(span: Span) -> str:
    where = {"turn": f"at turn {span.start}", "before": "before this session's first turn (carried over "
             "or from the user's profile)", "between": f"after the reply to turn {span.start}, between updates "
             "(e.g. the agent's read-back the user said yes to)"}[span.origin]
    story = [f"{span.label}: set {where}"]
    if span.words:
        story.append(f"from “{span.words}”")
    if span.said and span.said != span.words:
        story.append(f"(the user said: “{span.said}”)")
    if span.end is not None:
        story.append(f"; {ENDINGS[span.ending]} at turn {span.end}")
        if span.ended_by:
            story.append(f"by “{span.ended_by}”")
    else:
        story.append("; still held at the end")
    for mark in span.marks:
        story.append(f"; {mark.kind.replace('_', ' ')} at turn {mark.turn}")
    return " ".join(story).replace(" ;", ";")


def _changes_table(timeline: Timeline) -> str:
    rows = []
    spans = sorted((s for lane in timeline.lanes for s in lane.spans), key=lambda s: (s.start, s.slot))
    for span in spans:
        set_at = {"turn": str(span.start), "before": "before", "between": f"{span.start} (after reply)"}[span.origin]
        ended = (f"{ENDINGS[span.ending]} at turn {span.end}" if span.end is not None else ENDINGS["holds"])
        by = f"“{escape(span.ended_by)}”" if span.ended_by and span.end is not None else ""
        rows.append(f"<tr class=\"end-{span.ending}\"><td>{set_at}</td><td>{escape(span.label)}</td>"
                    f"<td>{('“' + escape(span.words) + '”') if span.words else ''}</td>"
                    f"<td>{ended}</td><td>{by}</td></tr>")
    return ("<details class=\"changes\" open><summary>Every condition, in the order it was set</summary>"
            "<table><thead><tr><th>turn</th><th>condition</th><th>words that set it</th><th>ended</th>"
            f"<th>ended by</th></tr></thead><tbody>{''.join(rows)}</tbody></table></details>")


def _recalled(turn: TurnView) -> list[str]:
    items = turn.memories.get("recalled")
    return [str(i) for i in items] if isinstance(items, list) else []


def _schema(session: SessionTrace) -> DomainSchema | None:
    """The session's domain, to read memories by (None: not known here; memories are quoted)."""
    from monologue.memory.domain.several import load_domains

    try:
        return load_domains(session.domain).schema if session.domain else None
    except Exception:        # a domain this installation does not have
        return None


def _memories(session: SessionTrace) -> str:
    rows, empty = [], []
    schema = _schema(session)
    language = session.language or "en"
    for turn in session.turns:
        recalled = _recalled(turn)
        extra = _memory_extras(turn.memories)
        if not recalled and not extra:
            empty.append(str(turn.number))
            continue
        # Each memory by what it means; the utterance it was kept from (recognition errors
        # and all) is a hover away.
        items = "".join(f"<li title=\"kept from: {escape(text)}\">{escape(memory_meaning(text, schema, language))}</li>"
                        for text in recalled)
        ms = turn.memories.get("ms")
        timing = f"{ms:.0f} ms" if isinstance(ms, (int, float)) else ""
        if turn.memories.get("timed_out"):
            timing += " (timed out)"
        rows.append(f"<div class=\"recall\"><div class=\"rturn\"><a href=\"#turn-{turn.number}\">turn {turn.number}"
                    f"</a><span>{escape(timing)}</span></div><div><p class=\"asked\">{escape(turn.user_text)}</p>"
                    f"<ul>{items}</ul>{extra}</div></div>")
    if not rows:
        body = ("<p class=\"empty\">Long-term memory recalled nothing in this session "
                "(a first session, or one with no user named: <code>--user</code>, or the name on "
                "the room's page).</p>")
    else:
        body = "".join(rows)
        if empty:
            body += f"<p class=\"quiet\">Nothing recalled at turn(s) {', '.join(empty)}.</p>"
    return f"<section id=\"memories\"><h2>Memories recalled</h2>{body}</section>"


def _memory_extras(memories: dict[str, Any]) -> str:
    parts = []
    if memories.get("answer"):
        parts.append(f"<p><b>answered from memory:</b> {escape(str(memories['answer']))}</p>")
    conflict = memories.get("conflict")
    if isinstance(conflict, dict):
        parts.append(f"<p><b>conflicts with:</b> {escape(str(conflict.get('with', '')))} "
                     f"({escape(str(conflict.get('kind', '')))})</p>")
    travel = memories.get("time_travel")
    if isinstance(travel, dict):
        parts.append(f"<p><b>changed since:</b> {escape(str(travel.get('before', '')))} → "
                     f"{escape(str(travel.get('after', '')))}</p>")
    reflections = memories.get("reflections")
    if isinstance(reflections, list) and reflections:
        parts.append("<p><b>reflections:</b> " + "; ".join(escape(str(r)) for r in reflections) + "</p>")
    return "".join(parts)


def _waterfall(session: SessionTrace) -> str:
    """One row per turn; 0 is where the user stopped speaking; each bar is one stage, drawn
    where it ran (`latency.breakdown`); what a turn did not do is said under it, not drawn."""
    accounts = [breakdown(t.latency_ms, typed=t.typed, drafted=t.drafted,
                          unsaid=t.barge_in is not None and t.barge_in.unstarted) for t in session.turns]
    scale = max([max([s.end_ms for s in a.stages] + [a.total_ms or 0.0]) for a in accounts] + [1.0])
    step = _tick_step(scale)
    ticks = "".join(f"<span style=\"left:{x / scale * 100:.2f}%\">{seconds(x) if x else '0'}</span>"
                    for x in _frange(step, scale) if x <= scale * 0.94)   # the last label would run off
    legend = "".join(f"<span><i style=\"background:{STAGE_COLOURS[name]}\"></i>{escape(label)}</span>"
                     for name, label in STAGE_LABELS["en"].items() if name in STAGE_COLOURS)
    rows = [f"<div class=\"wf-row axis\"><div class=\"wf-label\">from end of speech</div>"
            f"<div class=\"wf-track ticks\">{ticks}</div><div class=\"wf-total\">voice-to-voice</div></div>"]
    for turn, account in zip(session.turns, accounts, strict=True):
        rows.append(_waterfall_row(turn, account, scale))
    note = ("<p class=\"legend\">Each stage is drawn where it ran, in milliseconds after the user stopped "
            "speaking. A thin bar ran beside the others (a transcript finished during the pause). What a turn "
            "did not do is written under it, not drawn: typed turns have no silence, recognition or voice; small "
            "talk updates no state; a reply worded by rules calls no model.</p>")
    return (f"<section id=\"latency\"><h2>Latency waterfall</h2><div class=\"wf-legend\">{legend}</div>{note}"
            f"<div class=\"waterfall\" style=\"--tick:{step / scale * 100:.3f}%\">{''.join(rows)}</div></section>")


def _waterfall_row(turn: TurnView, account: Breakdown, scale: float) -> str:
    labels = STAGE_LABELS["en"]
    bars, chips = [], []
    for stage in account.stages:
        label = labels[stage.label_key]
        colour = STAGE_COLOURS[stage.name]
        kind = "bar parallel" if stage.parallel else "bar"
        bars.append(f"<i class=\"{kind}\" data-stage=\"{stage.name}\" style=\"left:{stage.start_ms / scale * 100:.2f}%;"
                    f"width:{max(stage.took_ms / scale * 100, 0.15):.2f}%;background:{colour}\" "
                    f"title=\"{escape(label)}: {stage.took_ms:.0f} ms (from {stage.start_ms:.0f} to "
                    f"{stage.end_ms:.0f} ms)\"></i>")
        chips.append(f"<span><i style=\"background:{colour}\"></i>{escape(label)} {seconds(stage.took_ms)}</span>")
    chips.extend(f"<span class=\"missing\">{escape(note)}</span>" for note in account.notes)
    total = seconds(account.total_ms)
    if turn.barge_in is not None and turn.barge_in.unstarted:
        # Its voice would have begun at the total: the user went on first, so nobody heard it.
        ready = f"; its voice was ready after {total}" if account.total_ms is not None else ""
        chips.append(f"<span class=\"cut went-on\">not said: the user went on first{ready}</span>")
        total = "not said"
    elif turn.barge_in is not None and turn.barge_in.shown and turn.barge_in.stop_ms:
        chips.append(f"<span class=\"cut\">✂ stopped in {turn.barge_in.stop_ms:.0f} ms</span>")
    return (f"<div class=\"wf-row\" data-turn=\"{turn.number}\"><div class=\"wf-label\">"
            f"<a href=\"#turn-{turn.number}\">turn {turn.number}</a></div>"
            f"<div class=\"wf-track\">{''.join(bars)}</div><div class=\"wf-total\">{total}</div>"
            f"<div class=\"wf-chips\">{''.join(chips)}</div></div>")


def _tick_step(scale: float) -> float:
    for step in (50, 100, 250, 500, 1000, 2000, 5000, 10000, 30000, 60000):
        if scale / step <= 8:
            return float(step)
    return scale / 8


def _frange(step: float, stop: float) -> list[float]:
    return [i * step for i in range(int(stop // step) + 1)]


def _notes(session: SessionTrace) -> str:
    if not session.notes:
        return ""
    items = "".join(f"<li>{escape(note)}</li>" for note in session.notes)
    return f"<section id=\"notes\"><h2>Notes on the trace</h2><ul class=\"notes\">{items}</ul></section>"
