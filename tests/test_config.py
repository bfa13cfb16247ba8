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
