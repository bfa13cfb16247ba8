"""Shared fixtures: real models loaded once per session, fakes for everything timing-related."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# Stores on files are sealed: the tests' key and default store live in a folder of their own,
# never the user's (a test must not seal the user's store with a key that vanishes after it).
_TEST_HOME = Path(tempfile.mkdtemp(prefix="monologue-test-"))
os.environ["MONOLOGUE_KEY_FILE"] = str(_TEST_HOME / "store.key")
os.environ["MONOLOGUE__STORE__PATH"] = str(_TEST_HOME / "monologue.db")
os.environ.pop("MONOLOGUE_STORE_KEY", None)

from fakes import STEADY_ENVIRON, steady  # noqa: E402  (after the environment: huggingface_hub reads it on import)

# The product's time limits, far away in every configuration that reads the environment (the
# CLI's subprocesses, the servers' workers): see fakes.STEADY.
os.environ.update(STEADY_ENVIRON)


@pytest.fixture
def mock_config():
    """The embedded defaults with a canned LLM reply (no model call), time limits far away."""
    from monologue.configs import load_config

    return load_config(overrides=steady(llm={"model": "openai/gpt-4o-mini", "fallback": None,
                                             "mock_response": "Sure, I can do that. Anything else?"}),
                       environ={})


@pytest.fixture(scope="session")
def real_models():
    """Real whisper tiny.en and piper, a mock LLM: loaded once for the whole run."""
    from monologue.configs import load_config
    from monologue.pipeline.builder import load_models

    config = load_config(overrides={"llm": {"model": "openai/gpt-4o-mini", "fallback": None,
                                            "mock_response": "Sure, I can do that. Anything else?"}},
                         environ={})
    return load_models(config)


# --- real PostgreSQL and Redis (tests/services.py) ----------------------------------------

@pytest.fixture(scope="session")
def servers():
    """The servers `.ci/run` started (MONOLOGUE_TEST_SERVICES_DIR), or started here for this run;
    without the binaries the tests using them skip, saying why."""
    import shutil

    from services import TestServices

    started = TestServices.from_env()
    if started is not None:
        yield started
        return
    ok, why = TestServices.available()
    if not ok:
        pytest.skip(why)
    # Not under pytest's own temporary folder: it is root's alone, and PostgreSQL runs as another user.
    folder = tempfile.mkdtemp(prefix="monologue-services-")
    services = TestServices(folder)
    services.start()
    yield services
    services.stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def pg_url(servers):
    """A fresh database on the server, dropped afterwards."""
    import uuid

    from monologue.memory.stores.postgres import PostgresDatabase

    name = f"t_{uuid.uuid4().hex[:10]}"
    admin = PostgresDatabase(servers.postgres_url, sealed=False)
    admin.run(f"CREATE DATABASE {name}")
    yield servers.postgres_url.rsplit("/", 1)[0] + f"/{name}"
    admin.run(f"DROP DATABASE {name} WITH (FORCE)")
    admin.close()
