"""The session report (E4): one self-contained HTML page from a session's trace.jsonl.

    from monologue.pipeline.report import write_report
    write_report(out_dir / "trace.jsonl")          # writes out_dir/report.html

The page shows the transcript (with barge-in cuts), a timeline of each condition in
working memory from the turn that set it to the turn that replaced, withdrew or expired
it, the long-term memories recalled at each turn, and a latency waterfall per turn.
Reading never raises on a line it does not understand: the line is skipped and the page
says so. It needs no network, no model and no pipecat, so it can run after any session.
"""

from __future__ import annotations

from pathlib import Path

from monologue.memory.stores.private_files import private_file, private_folder
from monologue.pipeline.report.page import render_page
from monologue.pipeline.report.reading import SessionTrace, read_trace

TRACE_NAME = "trace.jsonl"
REPORT_NAME = "report.html"

__all__ = ["REPORT_NAME", "TRACE_NAME", "SessionTrace", "find_traces", "read_trace", "render_page", "write_report"]


def write_report(trace_path: Path, html_path: Path | None = None) -> Path:
    """Write the report for `trace_path` (default: `report.html` beside it) and return its path.

    A missing or unreadable trace still gives a page that says so; only failing to write
    the page raises (OSError), since then there is nothing to show."""
    trace_path = Path(trace_path)
    target = Path(html_path) if html_path is not None else trace_path.with_name(REPORT_NAME)
    page = render_page(read_trace(trace_path))
    private_folder(target.parent)
    partial = private_file(target.with_name(target.name + ".partial"))
    partial.write_text(page, encoding="utf-8")
    partial.replace(target)          # a browser open on the old report never sees half a page
    return target


def find_traces(path: Path) -> list[Path]:
    """The traces `path` names: a trace file; a session folder holding trace.jsonl; or a
    folder of session folders (`monologue chat` writes one per session)."""
    path = Path(path)
    if path.is_file():
        return [path]
    if (path / TRACE_NAME).is_file():
        return [path / TRACE_NAME]
    if path.is_dir():
        return sorted(p / TRACE_NAME for p in path.iterdir() if (p / TRACE_NAME).is_file())
    return []
