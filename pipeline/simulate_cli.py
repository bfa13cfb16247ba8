"""The options of `monologue simulate` and `scripts/bench_conversations.py`, kept apart from the
harness (`simulate.py`) so that building the command line imports no pipecat."""

from __future__ import annotations

from typing import Any


def add_arguments(parser: Any, *, n: int, domains: str, languages: str, returns: int, model_subset: int) -> None:
    parser.add_argument("--domain", default=domains,
                        help="domains, comma-separated: bundled names or domain YAML paths (e.g. one written by "
                             f"`monologue domain import-sgd`); default {domains}")
    parser.add_argument("--language", default=languages,
                        help=f"languages, comma-separated (en, zh); default {languages}")
    parser.add_argument("--n", type=int, default=n, help=f"conversations per domain and language (default {n})")
    parser.add_argument("--seed", type=int, default=0, help="the same seed gives the same goals and users")
    parser.add_argument("--phrasing", action="append", metavar="KIND:PATH",
                        help="a phrasing corpus: sgd:PATH (an SGD dialogues file, .json or .json.gz) or "
                             "crosswoz:PATH (CrossWOZ dialogues, .json or .json.zip); repeatable; default: "
                             "SGD train/dev and CrossWOZ val from ../shared/data")
    parser.add_argument("--partition", choices=("heldout", "tune"), default="heldout",
                        help="whose goals and templates: the held-out side (reports) or the tuning side")
    parser.add_argument("--wording", choices=("policy", "model"), default="policy",
                        help="policy: each act in its template (fast); model: the reply model words it")
    parser.add_argument("--model-subset", type=int, default=model_subset,
                        help=f"also this many conversations per cell with the model's wording (default {model_subset})")
    parser.add_argument("--returns", type=int, default=returns,
                        help=f"returning users per cell: three sessions days apart, with long-term memory "
                             f"(default {returns})")
    parser.add_argument("--agent", default="monologue",
                        help="monologue (the real agent), or the calibration agent: reference, "
                             "reference:forget=3, reference:repeat, reference:ignore")
    parser.add_argument("--out", help="folder for the table, the scores and the transcripts "
                                      "(default out/simulate/<time>)")
    parser.add_argument("--worst", type=int, default=10, help="transcripts of the worst conversations to keep apart")
    parser.add_argument("--config", help="YAML file over configs/default.yaml")
    parser.add_argument("--llm", help="litellm model string for the agent, e.g. openai/gpt-4o-mini")
