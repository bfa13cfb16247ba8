import pytest

from monologue.configs import ConfigError, load_config


def test_defaults_are_embedded_and_offline():
    config = load_config(environ={})
    assert config.vad.engine == "silero"
    assert config.llm.model.startswith("local/")
    assert config.language == "en"


def test_environment_overrides_nested_keys():
    config = load_config(environ={"MONOLOGUE__LLM__MODEL": "openai/gpt-4o-mini",
                                  "MONOLOGUE__VAD__STOP_SECS": "0.8",
                                  "MONOLOGUE__LLM__API_BASE": "null"})
    assert config.llm.model == "openai/gpt-4o-mini"
    assert config.vad.stop_secs == 0.8
    assert config.llm.api_base is None


def test_yaml_file_then_explicit_overrides(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("vad:\n  engine: webrtc\nllm:\n  max_tokens: 40\n")
    config = load_config(path, overrides={"llm": {"max_tokens": 50}}, environ={})
    assert config.vad.engine == "webrtc"
    assert config.llm.max_tokens == 50


@pytest.mark.parametrize("environ, fragment", [
    ({"MONOLOGUE__VAD__STOP_SECS": "soon"}, "vad.stop_secs must be float"),
    ({"MONOLOGUE__VAD__ENGINE": "magic"}, "vad.engine"),
    ({"MONOLOGUE__NOPE": "1"}, "unknown config key"),
    ({"MONOLOGUE__LANGUAGE": "fr"}, "language"),
])
def test_bad_values_name_the_key(environ, fragment):
    with pytest.raises(ConfigError, match=fragment):
        load_config(environ=environ)


def test_missing_or_broken_file(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "absent.yaml", environ={})
    broken = tmp_path / "broken.yaml"
    broken.write_text("vad: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(broken, environ={})


def test_retention_periods_come_from_config(monkeypatch):
    from monologue.configs import load_config

    monkeypatch.setenv("MONOLOGUE__LONG_TERM__DECAY_DAYS", "10")
    config = load_config()
    assert config.long_term.decay_days == 10.0 and config.long_term.archive_days == 7.0


@pytest.mark.parametrize("environ, message", [
    ({"MONOLOGUE__VAD__STOP_SECS": "soon"}, "vad.stop_secs must be float, got 'soon'"),
    ({"MONOLOGUE__LLM__MAX_TOKENS": "many"}, "llm.max_tokens must be int, got 'many'"),
    ({"MONOLOGUE__TRACE__ENABLED": "maybe"}, "trace.enabled must be bool, got 'maybe'"),
    ({"MONOLOGUE__VAD__ENGINE": "magic"}, "vad.engine must be one of 'silero', 'webrtc', got 'magic'"),
    ({"MONOLOGUE__MONOLOGUE__LLM_MODE": "sometimes"},
     "monologue.llm_mode must be one of 'auto', 'always', 'never', got 'sometimes'"),
    ({"MONOLOGUE__REPLY__CONTEXT_POSITION": "before"},
     "reply.context_position must be one of 'user', 'after', got 'before'"),
    ({"MONOLOGUE__VAD": "fast"}, "vad must be a mapping, got 'fast'"),
])
def test_a_wrong_type_names_the_key_the_type_and_the_value(environ, message):
    with pytest.raises(ConfigError) as caught:
        load_config(environ=environ)
    assert str(caught.value) == message


def test_an_unknown_key_lists_the_known_ones():
    with pytest.raises(ConfigError) as caught:
        load_config(environ={"MONOLOGUE__VAD__STOP_SEC": "0.8"})
    message = str(caught.value)
    assert message.startswith("unknown config key vad.stop_sec; known keys here: ")
    assert "stop_secs" in message and "engine" in message


def test_environment_names_are_case_insensitive_and_words_stand_for_null():
    config = load_config(environ={"MONOLOGUE__Llm__Model": "openai/x", "MONOLOGUE__LLM__FALLBACK": "None",
                                  "MONOLOGUE__REPLY__CATALOGUE": ""})
    assert config.llm.model == "openai/x"
    assert config.llm.fallback is None and config.reply.catalogue is None


def test_settings_are_immutable():
    config = load_config(environ={})
    with pytest.raises(ValueError, match="frozen"):
        config.vad.engine = "webrtc"
    assert hash(config) == hash(load_config(environ={}))


def test_with_overrides_copies_and_checks():
    config = load_config(environ={})
    webrtc = config.with_overrides({"vad": {"engine": "webrtc"}})
    assert webrtc.vad.engine == "webrtc" and webrtc.vad.stop_secs == config.vad.stop_secs
    assert config.vad.engine == "silero"
    with pytest.raises(ConfigError, match="vad.engine must be one of"):
        config.with_overrides({"vad": {"engine": "magic"}})


def test_to_dict_holds_every_section():
    data = load_config(environ={}).to_dict()
    assert data["llm"]["model"].startswith("local/") and data["vad"]["engine"] == "silero"
