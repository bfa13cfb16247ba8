"""`monologue talk` through the real sounddevice → PortAudio → ALSA → PulseAudio path, on a
private PulseAudio daemon with two null sinks (no sound card needed):

    paplay → micsink → micsink.monitor (the default source) → talk → speaker (the default sink)
    → speaker.monitor → parecord

Needs `pulseaudio`, `pulseaudio-utils` and `libportaudio2` (apt); skips, saying which is
missing, where they are not installed. The CLI runs in a subprocess so that PortAudio
enumerates the devices of this daemon (it reads them once, when it is initialised).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from fakes import DEMO, ROOT, barge_in_turns, word_overlap

pytestmark = pytest.mark.slow

FIRST_TURN = "I'd like to book a table for four people on Saturday evening"


def _missing() -> str:
    for tool in ("pulseaudio", "pactl", "paplay", "parecord"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (apt-get install pulseaudio pulseaudio-utils)"
    probe = subprocess.run([sys.executable, "-c", "import sounddevice"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"sounddevice/PortAudio cannot be loaded (apt-get install libportaudio2): {probe.stderr.strip()[-200:]}"
    return ""


@pytest.fixture
def pulse(tmp_path_factory) -> Iterator[dict[str, str]]:
    """A private PulseAudio daemon (its own runtime dir); the environment that reaches it."""
    missing = _missing()
    if missing:
        pytest.skip(missing)
    home = tmp_path_factory.mktemp("pulse")
    env = dict(os.environ, HOME=str(home), XDG_RUNTIME_DIR=str(home), PULSE_RUNTIME_PATH=str(home / "pulse"),
               XDG_CONFIG_HOME=str(home / "config"))
    env.pop("PULSE_SERVER", None)
    # As root PulseAudio warns ("not intended to be run as root") but runs; -n: no default.pa,
    # only the modules named here.
    started = subprocess.run(["pulseaudio", "-D", "--exit-idle-time=-1", "-n", "--log-target=stderr",
                              "--load=module-native-protocol-unix", "--load=module-null-sink sink_name=speaker"],
                             env=env, capture_output=True, text=True, timeout=30)
    if started.returncode != 0:
        pytest.skip(f"pulseaudio would not start here: {started.stderr.strip()[-300:]}")
    try:
        for command in (["pactl", "load-module", "module-null-sink", "sink_name=micsink"],
                        ["pactl", "set-default-source", "micsink.monitor"],
                        ["pactl", "set-default-sink", "speaker"]):
            subprocess.run(command, env=env, check=True, capture_output=True, timeout=30)
        yield env
    finally:
        subprocess.run(["pulseaudio", "--kill"], env=env, capture_output=True, timeout=30)


def _talk_env(pulse: dict[str, str]) -> dict[str, str]:
    return dict(pulse, HF_HUB_OFFLINE="1", LITELLM_OFFLINE_MODE="true", LITELLM_LOCAL_MODEL_COST_MAP="True",
                PYTHONUNBUFFERED="1", MONOLOGUE__LLM__MODEL="openai/gpt-4o-mini", MONOLOGUE__LLM__FALLBACK="null",
                MONOLOGUE__LLM__MOCK_RESPONSE="Okay.", MONOLOGUE__MONOLOGUE__LLM_MODE="never")


def _monologue(*args: str) -> list[str]:
    return [sys.executable, "-m", "monologue.pipeline.cli", *args]


def _wait_for(path: Path, text: str, process: subprocess.Popen, secs: float) -> bool:
    deadline = time.monotonic() + secs
    while time.monotonic() < deadline:
        if text in path.read_text(errors="replace"):
            return True
        if process.poll() is not None:
            return False
        time.sleep(0.2)
    return False


def test_devices_of_the_sound_server_are_listed_and_a_bad_one_is_refused(pulse):
    env = _talk_env(pulse)
    listed = subprocess.run(_monologue("talk", "--list-devices"), env=env, capture_output=True, text=True,
                            timeout=60, cwd=ROOT)
    assert listed.returncode == 0 and "pulse" in listed.stdout, listed.stderr
    refused = subprocess.run(_monologue("talk", "--input", "nosuch"), env=env, capture_output=True, text=True,
                             timeout=60, cwd=ROOT)
    assert refused.returncode == 2
    assert "no input device 'nosuch'" in refused.stderr and "'pulse'" in refused.stderr
    assert "Listening" not in refused.stdout and "Traceback" not in refused.stderr


def test_without_a_sound_server_no_devices_is_said(tmp_path, pulse):
    env = dict(_talk_env(pulse), XDG_RUNTIME_DIR=str(tmp_path), PULSE_RUNTIME_PATH=str(tmp_path / "none"),
               PULSE_SERVER=f"unix:{tmp_path}/none/native")
    listed = subprocess.run(_monologue("talk", "--list-devices"), env=env, capture_output=True, text=True,
                            timeout=60, cwd=ROOT)
    if listed.returncode == 0:
        pytest.skip(f"this machine has a sound card PortAudio sees without PulseAudio: {listed.stdout!r}")
    assert listed.returncode == 2 and "no audio devices found" in listed.stderr
    assert len(listed.stderr.strip().splitlines()) == 1


def test_one_spoken_turn_through_pulseaudio_then_ctrl_c_mid_reply(pulse, tmp_path):
    env = _talk_env(pulse)
    audio, rate = sf.read(DEMO, dtype="float32")
    turn = tmp_path / "turn.wav"
    sf.write(turn, audio[: int(5.2 * rate)], rate, subtype="PCM_16")
    out_dir, stdout, stderr = tmp_path / "out", tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    speaker_wav = tmp_path / "speaker.wav"
    recorder = subprocess.Popen(["parecord", "--device=speaker.monitor", "--file-format=wav", str(speaker_wav)],
                                env=env)
    with stdout.open("w") as out, stderr.open("w") as err:
        talk = subprocess.Popen(_monologue("talk", "--out", str(out_dir)), env=env, stdout=out, stderr=err, cwd=ROOT)
    try:
        assert _wait_for(stdout, "Listening", talk, 180), (stdout.read_text(), stderr.read_text())
        subprocess.run(["paplay", "--device=micsink", str(turn)], env=env, check=True, timeout=60)
        assert _wait_for(stdout, "\nagent ", talk, 120), (stdout.read_text(), stderr.read_text())
        time.sleep(0.5)                                  # the reply is playing
        talk.send_signal(signal.SIGINT)
        rc = talk.wait(timeout=30)
    finally:
        if talk.poll() is None:
            talk.kill()
        recorder.send_signal(signal.SIGINT)
        recorder.wait(timeout=10)
    shown, errors = stdout.read_text(), stderr.read_text()
    assert rc == 0, (shown, errors)
    # No PortAudio/ALSA host error and no traceback (a busy machine may log a warning, e.g. a slow stage).
    assert not [line for line in errors.splitlines() if "WARNING" not in line], errors
    heard = next(line for line in shown.splitlines() if line.startswith("you"))
    assert word_overlap(FIRST_TURN, heard) >= 0.7
    assert "party_size" in shown and "1 turn(s)" in shown
    transcript = (out_dir / "transcript.txt").read_text()
    assert "user:" in transcript and "agent:" in transcript
    # The agent's voice reached the speaker sink (recorded off its monitor) and reply.wav.
    for path in (speaker_wav, out_dir / "reply.wav"):
        played, played_rate = sf.read(path, dtype="float32", always_2d=True)
        loud_secs = float((np.abs(played.mean(axis=1)) > 0.02).sum()) / played_rate
        assert loud_secs > 0.2, f"{path.name}: {loud_secs:.2f} s of agent voice"


class SpeakerMonitor:
    """What reaches the speaker sink, recorded raw off its monitor: how much of the agent's
    voice has played so far, so that the test speaks when a user would."""

    RATE = 16000

    def __init__(self, env: dict[str, str], path: Path) -> None:
        self.path = path
        self.process = subprocess.Popen(["parec", "--device=speaker.monitor", "--format=s16le", "--channels=1",
                                         f"--rate={self.RATE}", "--raw", str(path)], env=env)

    def voiced_secs(self) -> float:
        if not self.path.exists():
            return 0.0
        # One read, cut to whole 20 ms frames of its own length: parec is still writing, so a size
        # taken by a second call can be larger than what was read.
        raw = self.path.read_bytes()
        samples = np.frombuffer(raw[: len(raw) // 640 * 640], dtype=np.int16)
        frames = samples.astype(np.float32).reshape(-1, 320)
        return float((np.sqrt((frames ** 2).mean(axis=1)) > 300).sum()) * 0.02

    def wait(self, condition: Callable[[float], bool], talk: subprocess.Popen, secs: float = 120) -> bool:
        deadline = time.monotonic() + secs
        while time.monotonic() < deadline and talk.poll() is None:
            if condition(self.voiced_secs()):
                return True
            time.sleep(0.2)
        return False

    def wait_quiet(self, talk: subprocess.Popen, quiet_secs: float = 2.0, secs: float = 120) -> bool:
        """Until no voice has played for `quiet_secs` (the agent has finished speaking)."""
        deadline = time.monotonic() + secs
        last, since = self.voiced_secs(), time.monotonic()
        while time.monotonic() < deadline and talk.poll() is None:
            time.sleep(0.2)
            now = self.voiced_secs()
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet_secs:
                return True
        return False

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=10)


def test_with_barge_in_speaking_over_the_agent_cuts_it(pulse, tmp_path):
    """talk --barge-in, the microphone path for real: the user changes the party size while
    the agent is still offering a place (the agent's voice goes to another sink, as with
    headphones), and the offer is cut. The user speaks when the agent's voice says so, as a
    person would: on a busy machine replies start later."""
    import json

    env = _talk_env(pulse)
    env["MONOLOGUE__REPLY__WORDING"] = "policy"
    turns = []
    for index, samples in enumerate(barge_in_turns()[:3]):
        turns.append(tmp_path / f"turn{index + 1}.wav")
        sf.write(turns[-1], samples, 16000, subtype="PCM_16")
    out_dir, stdout, stderr = tmp_path / "out", tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    speaker = SpeakerMonitor(env, tmp_path / "speaker.raw")
    with stdout.open("w") as out, stderr.open("w") as err:
        talk = subprocess.Popen(_monologue("talk", "--barge-in", "--out", str(out_dir)), env=env, stdout=out,
                                stderr=err, cwd=ROOT)

    def say(turn: Path) -> None:
        subprocess.run(["paplay", "--device=micsink", str(turn)], env=env, check=True, timeout=90)

    try:
        assert _wait_for(stdout, "Listening", talk, 180), (stdout.read_text(), stderr.read_text())
        assert speaker.wait_quiet(talk), "the greeting did not end"
        before = speaker.voiced_secs()
        say(turns[0])                                        # a table for four on Saturday evening
        assert speaker.wait(lambda secs: secs > before + 0.3, talk), (stdout.read_text(), stderr.read_text())
        assert speaker.wait_quiet(talk), "the first reply did not end"
        before = speaker.voiced_secs()
        say(turns[1])                                        # around seven, nothing spicy: an offer follows
        assert speaker.wait(lambda secs: secs > before + 1.0, talk), (stdout.read_text(), stderr.read_text())
        say(turns[2])                                        # over the offer: make it six people
        trace = out_dir / "trace.jsonl"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and (not trace.exists() or len(trace.read_text().splitlines()) < 3):
            time.sleep(0.5)
        talk.send_signal(signal.SIGINT)
        rc = talk.wait(timeout=30)
    finally:
        if talk.poll() is None:
            talk.kill()
        speaker.stop()
    lines = {line["turn"]: line for line in map(json.loads, (out_dir / "trace.jsonl").read_text().splitlines())}
    assert rc == 0 and 2 in lines, (stdout.read_text(), stderr.read_text())
    cut = lines[2]["barge_in"]
    assert cut.get("cut") is True and cut.get("by_turn") == 3, lines[2]
    assert cut["stop_ms"] <= 300 and cut["unspoken"]
    assert "[cut by the user" in (out_dir / "transcript.txt").read_text()
