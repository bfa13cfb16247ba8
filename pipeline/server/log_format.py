"""`monologue serve --log-format json`: one JSON object a line, for a log collector."""

from __future__ import annotations

import json
from typing import Any


def json_log_line(record: Any) -> str:
    """loguru format for `--log-format json`: one object a line, with the session the line is
    about (`session_id`, set for everything a room's pipeline logs) for a log collector."""
    extra = record["extra"]
    line = {"time": record["time"].isoformat(timespec="milliseconds"), "level": record["level"].name,
            "where": record["name"], "session_id": extra.get("session_id"), "message": record["message"]}
    if record["exception"] is not None:
        line["exception"] = f"{record['exception'].type.__name__}: {record['exception'].value}"
    extra["_json"] = json.dumps(line, ensure_ascii=False)
    return "{extra[_json]}\n"
