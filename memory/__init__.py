"""Monologue's memory as a plain library: no frames, no audio, no pipecat.

Rooms:
- `working/`: one session's state and the inner monologue that changes it (seed 000);
- `longterm/`: what is remembered about a user across sessions (seeds 001, 002);
- `stores/`: where both live, behind small protocols (SQLite by default);
- `domain/`: reading the domain YAML (keys, values, catalogues) — the domain itself lives
  only in `configs/domains/*.yaml`;
- `language/`: what the rules know about English and Chinese: numbers, times, dates,
  cue words and the agent's spoken phrases.
"""
