"""The report page's stylesheet, inlined into the page so it needs no file beside it.

Fonts are the reader's own (a CJK face named for Chinese sessions); colours print
(`print-color-adjust`), and the timeline and waterfall are plain CSS grid boxes.
"""

CSS = """
:root { --ink:#1f2933; --muted:#6b7785; --line:#e3e8ee; --user:#eef4fb; --agent:#f6f3ee; --accent:#4e79a7; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "Noto Sans", "Noto Sans CJK SC", "PingFang SC",
       "WenQuanYi Micro Hei", "Microsoft YaHei", sans-serif; color: var(--ink); margin: 0 auto; max-width: 1320px;
       padding: 24px 28px 48px;
       -webkit-print-color-adjust: exact; print-color-adjust: exact; }
h1 { font-size: 22px; margin: 0 0 2px; } h2 { font-size: 17px; margin: 32px 0 10px; padding-bottom: 4px;
       border-bottom: 2px solid var(--line); }
.src { color: var(--muted); margin: 0 0 12px; font-size: 12px; word-break: break-all; }
.facts { display: flex; flex-wrap: wrap; gap: 8px; }
.fact { border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; min-width: 120px; }
.fact span { display: block; font-size: 11px; color: var(--muted); text-transform: uppercase; letter-spacing: .03em; }
.fact b { font-size: 15px; }
.warn { background: #fff4e5; border-left: 3px solid #f28e2b; padding: 6px 10px; }
.empty, .quiet { color: var(--muted); }
.transcript { display: flex; flex-direction: column; gap: 4px; }
.line { display: grid; grid-template-columns: 5.2rem 3.6rem 1fr; gap: 8px; padding: 6px 10px; border-radius: 6px;
        break-inside: avoid; }
.line.user { background: var(--user); margin-top: 6px; } .line.agent { background: var(--agent); }
.line time { color: var(--muted); font-variant-numeric: tabular-nums; }
.line .who { font-weight: 600; } .line.user .who { color: #2c5d8f; } .line.agent .who { color: #8a5a1f; }
.meta { color: var(--muted); font-size: 12px; }
del.unspoken { color: #a0a8b0; text-decoration: line-through; }
.cut { color: #c0392b; font-weight: 600; } .err { color: #c0392b; }
.cut.went-on { color: var(--muted); font-weight: 400; }
.legend { color: var(--muted); font-size: 12px; margin: 4px 0 10px; }
.end { white-space: nowrap; margin-right: 6px; }
.timeline { display: grid; gap: 3px 0; align-items: stretch; border: 1px solid var(--line); border-radius: 6px;
            padding: 8px; overflow-x: auto; }
.lane-name { grid-column: 1; font-size: 12px; font-weight: 600; padding: 5px 8px 5px 0; overflow-wrap: anywhere; }
.lane-name.axis, .tick { color: var(--muted); font-weight: 400; grid-row: 1; }
.tick { text-align: center; font-size: 11px; border-bottom: 2px solid var(--line); padding-bottom: 2px; }
.tick.updated { color: var(--ink); font-weight: 700; border-bottom-color: var(--accent); }
.tick.failed { color: #c0392b; border-bottom-color: #c0392b; }
.span { position: relative; min-height: 46px; margin: 0 2px; padding: 3px 16px 13px 6px; border-radius: 4px;
        background: #dbe7f3; border-left: 3px solid var(--accent); font-size: 12px; line-height: 1.3;
        overflow: hidden; white-space: nowrap; text-overflow: ellipsis; }
.span.goal { background: #e4eedf; border-left-color: #59a14f; }
.span .words { display: block; color: var(--muted); font-style: italic; overflow: hidden; text-overflow: ellipsis; }
.span::after { position: absolute; right: 3px; top: 50%; transform: translateY(-50%); font-weight: 700; }
.span.end-replaced::after { content: "→"; color: var(--accent); }
.span.end-withdrawn { background: #f6dede; border-left-color: #c0392b; }
.span.end-withdrawn::after { content: "✕"; color: #c0392b; }
.span.end-expired { background: #eeeeee; border-left-color: #9aa3ab; }
.span.end-expired::after { content: "◷"; }
.span.end-removed::after { content: "∅"; color: var(--muted); }
.span.end-holds::after { content: "▸"; color: var(--accent); }
.end.replaced { color: var(--accent); } .end.withdrawn { color: #c0392b; } .end.expired { color: #6b7785; }
.mark { position: absolute; bottom: 0; transform: translateX(-50%); font-style: normal; font-size: 11px;
        font-weight: 700; line-height: 13px; }
.mark.confirmed { color: #2e7d32; } .mark.to_confirm, .mark.reaffirmed { color: #b26a00; }
details.changes { margin-top: 10px; } details.changes summary { cursor: pointer; color: var(--muted); }
table { border-collapse: collapse; width: 100%; font-size: 12px; margin-top: 6px; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
tr.end-withdrawn td:nth-child(4) { color: #c0392b; } tr.end-expired td:nth-child(4) { color: #6b7785; }
.recall { display: grid; grid-template-columns: 7rem 1fr; gap: 8px; padding: 6px 0;
          border-bottom: 1px solid var(--line); break-inside: avoid; }
.rturn span { display: block; color: var(--muted); font-size: 12px; }
.recall .asked { margin: 0; color: var(--muted); font-style: italic; }
.recall ul { margin: 4px 0; padding-left: 18px; } .recall p { margin: 2px 0; }
.wf-legend { display: flex; gap: 14px; flex-wrap: wrap; font-size: 12px; }
.wf-legend i, .wf-chips i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px;
                            vertical-align: -1px; }
.waterfall { display: grid; grid-template-columns: 7rem 1fr 7rem; gap: 2px 10px; }
.wf-row { display: contents; }
.wf-label { font-size: 12px; padding-top: 3px; } .wf-total { font-weight: 600; font-variant-numeric: tabular-nums; }
.wf-row.axis .wf-label, .wf-row.axis .wf-total { color: var(--muted); font-weight: 400; font-size: 11px; }
.wf-track { position: relative; height: 20px; border-radius: 3px; background-color: #fafbfc;
            background-image: linear-gradient(90deg, var(--line) 1px, transparent 1px);
            background-size: var(--tick, 10%) 100%; }
.wf-track.ticks { background: none; height: 16px; font-size: 11px; color: var(--muted); }
.wf-track.ticks span { position: absolute; transform: translateX(-50%); }
.wf-track .bar { position: absolute; top: 2px; bottom: 2px; border-radius: 2px; }
.wf-track .bar.parallel { top: 7px; bottom: 7px; opacity: .75; }
.wf-chips { grid-column: 2 / 4; display: flex; flex-wrap: wrap; gap: 4px 12px; font-size: 11px; color: var(--muted);
            margin-bottom: 8px; }
.wf-chips .missing { color: #b0b8c0; }
.notes li { color: #8a5a1f; }
@media print {
  body { padding: 0; max-width: none; font-size: 11px; }
  details.changes { display: block; } .timeline { overflow: visible; }
  section { break-inside: auto; } h2 { break-after: avoid; }
}
"""
