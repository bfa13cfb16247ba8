"""Typed configuration loaded from YAML, overridable from the environment.

Precedence (last wins): ``configs/default.yaml`` < a user YAML file < environment
variables ``MONOLOGUE__SECTION__KEY`` < explicit overrides passed by code.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import Any

import yaml

DEFAULT_CONFIG_PATH = Path(__file__).with_name("default.yaml")
ENV_PREFIX = "MONOLOGUE__"


class ConfigError(ValueError):
    """A configuration value is missing, unknown or of the wrong type."""


@dataclass(frozen=True)
class AudioOptions:
    sample_rate: int = 16000
    chunk_ms: int = 20


@dataclass(frozen=True)
class VADOptions:
    engine: str = "silero"
    confidence: float = 0.6
    start_secs: float = 0.2
    stop_secs: float = 0.5
    min_volume: float = 0.0
    pre_roll_secs: float = 0.3
    max_segment_secs: float = 30.0
    webrtc_aggressiveness: int = 2


@dataclass(frozen=True)
class ASROptions:
    model: str = "auto"
    beam_size: int = 1
    compute_type: str = "int8"
    cpu_threads: int = 2
    initial_prompt_zh: str = "以下是普通话的句子。"
    low_confidence: float = 0.45


@dataclass(frozen=True)
class LLMOptions:
    model: str = "local/qwen2.5-0.5b-instruct"
    api_base: str | None = None
    fallback: str | None = "local/qwen2.5-0.5b-instruct"
    temperature: float = 0.3
    max_tokens: int = 80
    timeout_secs: float = 30.0
    n_ctx: int = 2048
    n_threads: int = 2
    mock_response: str | None = None


@dataclass(frozen=True)
class ReplyOptions:
    system_prompt: str = "You are Monologue, a friendly voice assistant."
    recent_turns: int = 6
    max_utterance_chars: int = 240
    catalogue: str | None = None
    context_position: str = "user"
    min_clause_chars: int = 12


@dataclass(frozen=True)
class MonologueOptions:
    enabled: bool = True
    domain: str = "restaurant"
    expire_after_turns: int = 8
    llm_mode: str = "auto"
    llm_timeout_secs: float = 20.0


@dataclass(frozen=True)
class LongTermConfig:
    recall_k: int = 3
    budget_ms: float = 250.0          # recall on the reply's critical path gives up after this
    llm_help: bool = True             # the LLM scores importance, words reflections and plans, judges contradictions
    llm_timeout_secs: float = 20.0
    reflection_min_contexts: int = 3
    summary_chars: int = 500
    keep_forever_from: int = 8        # importance ≥ this: kept until deleted
    decay_days: float = 30.0          # middle tier: loses a point of importance after this
    archive_days: float = 7.0         # importance < 4: archived after this


@dataclass(frozen=True)
class StoreOptions:
    path: str = "~/.local/share/monologue/monologue.db"


@dataclass(frozen=True)
class TTSOptions:
    voice: str = "auto"
    length_scale: float = 1.0


@dataclass(frozen=True)
class ReplayOptions:
    max_seconds: float = 1800.0
    tail_silence_secs: float = 1.0


@dataclass(frozen=True)
class TraceOptions:
    enabled: bool = True


@dataclass(frozen=True)
class MonologueConfig:
    language: str = "en"
    audio: AudioOptions = field(default_factory=AudioOptions)
    vad: VADOptions = field(default_factory=VADOptions)
    asr: ASROptions = field(default_factory=ASROptions)
    llm: LLMOptions = field(default_factory=LLMOptions)
    reply: ReplyOptions = field(default_factory=ReplyOptions)
    monologue: MonologueOptions = field(default_factory=MonologueOptions)
    long_term: LongTermConfig = field(default_factory=LongTermConfig)
    store: StoreOptions = field(default_factory=StoreOptions)
    tts: TTSOptions = field(default_factory=TTSOptions)
    replay: ReplayOptions = field(default_factory=ReplayOptions)
    trace: TraceOptions = field(default_factory=TraceOptions)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _coerce(value: Any, annotation: str, where: str) -> Any:
    """Turn a YAML or environment value into the field's declared type."""
    if value is None:
        if "None" in annotation:
            return None
        raise ConfigError(f"{where} may not be empty")
    if isinstance(value, str) and "None" in annotation and value.strip().lower() in ("", "null", "none"):
        return None
    base = annotation.replace("| None", "").strip()
    try:
        if base == "bool":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ValueError(value)
        if base == "int":
            return int(value)
        if base == "float":
            return float(value)
        if base == "str":
            return str(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{where} must be {base}, got {value!r}") from None
    return value


def _build(cls: type, data: Mapping[str, Any], where: str) -> Any:
    known = {f.name: f for f in fields(cls)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ConfigError(
            f"unknown config key(s) {', '.join(where + k for k in unknown)}; "
            f"known keys here: {', '.join(sorted(known))}"
        )
    kwargs: dict[str, Any] = {}
    for name, value in data.items():
        spec = known[name]
        default = spec.default_factory() if callable(spec.default_factory) else None  # type: ignore[misc]
        if default is not None and is_dataclass(default):
            if not isinstance(value, Mapping):
                raise ConfigError(f"{where}{name} must be a mapping, got {value!r}")
            kwargs[name] = _build(type(default), value, f"{where}{name}.")
        else:
            kwargs[name] = _coerce(value, str(spec.type), f"{where}{name}")
    return cls(**kwargs)


def _deep_merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _deep_merge(dict(merged[key]), value)
        else:
            merged[key] = value
    return merged


def _env_overrides(environ: Mapping[str, str]) -> dict[str, Any]:
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
    config = _build(MonologueConfig, data, "")
    if config.language not in ("en", "zh"):
        raise ConfigError(f"language must be 'en' or 'zh', got {config.language!r}")
    if config.monologue.llm_mode not in ("auto", "always", "never"):
        raise ConfigError(f"monologue.llm_mode must be auto, always or never, got {config.monologue.llm_mode!r}")
    if config.reply.context_position not in ("user", "after"):
        raise ConfigError(f"reply.context_position must be user or after, got {config.reply.context_position!r}")
    if config.vad.engine not in ("silero", "webrtc"):
        raise ConfigError(f"vad.engine must be 'silero' or 'webrtc', got {config.vad.engine!r}")
    return config


__all__ = [
    "ASROptions",
    "AudioOptions",
    "ConfigError",
    "LLMOptions",
    "MonologueOptions",
    "StoreOptions",
    "MonologueConfig",
    "ReplayOptions",
    "ReplyOptions",
    "TTSOptions",
    "TraceOptions",
    "VADOptions",
    "load_config",
    "replace",
]
