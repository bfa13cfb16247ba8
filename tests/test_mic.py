"""The microphone path with a fake sounddevice: device checks, rates, the console, Ctrl-C,
device failures, half-duplex and --barge-in. The real PortAudio path: test_mic_pulse.py."""

from __future__ import annotations

import asyncio
import io
import json
import sys
import threading
import time
from typing import Any

import numpy as np
import pytest
import soundfile as sf
import soxr
from pipecat.workers.runner import WorkerRunner

from monologue.pipeline import audio_devices, cli, mic_transport, talk
from monologue.pipeline.audio_devices import DeviceError, _device_arg, choose_device, list_devices
from monologue.pipeline.session import SessionSpec
from monologue.pipeline.talk import TalkDevices, TalkEnvironment, TalkOptions, _talk_ends, build_talk_worker, run_talk
from monologue.pipeline.talk_console import TalkConsole

from fakes import DEMO, word_overlap

DEVICE_RATE = 48000
FIRST_TURN = "I'd like to book a table for four people on Saturday evening"


class FakeInputStream:
    """Calls the callback from its own thread, like PortAudio, at 4× real time; `dies_after`
    blocks it stops, as a device that was unplugged (the stream goes inactive)."""

    def __init__(self, audio: np.ndarray, callback, blocksize: int, dies_after: int | None = None,
                 fails_to_start: bool = False, **kwargs) -> None:
        self._audio, self._callback, self._block = audio, callback, blocksize
        self.kwargs = kwargs
        self._stop = threading.Event()
        self._dies_after = dies_after
        self._fails_to_start = fails_to_start
        self.active = False
        self.closed = False

    def start(self) -> None:
        if self._fails_to_start:
            raise RuntimeError("Error starting stream: Device unavailable [PaErrorCode -9985]")
        self.active = True
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        sent = 0
        for i in range(0, self._audio.size, self._block):
            if self._stop.is_set() or sent == self._dies_after:
                break
            block = self._audio[i:i + self._block].reshape(-1, 1)
            self._callback(block, block.shape[0], None, None)
            sent += 1
            time.sleep(self._block / DEVICE_RATE / 4)
        while sent != self._dies_after and not self._stop.wait(self._block / DEVICE_RATE / 4):
            self._callback(np.zeros((self._block, 1), np.int16), self._block, None, None)  # the room is quiet
        self.active = False

    def stop(self) -> None:
        self._stop.set()
        self.active = False

    def close(self) -> None:
        self.closed = True


class FakeOutputStream:
    def __init__(self, fails_after: int | None = None, **kwargs) -> None:
        self.kwargs = kwargs
        self.written: list[np.ndarray] = []
        self.closed = False
        self.active = False
        self._fails_after = fails_after

    def start(self) -> None:
        self.active = True

    def write(self, data: np.ndarray) -> None:
        if self._fails_after is not None and len(self.written) >= self._fails_after:
            raise RuntimeError("Error writing to stream: Unanticipated host error [PaErrorCode -9999]")
        time.sleep(data.shape[0] / DEVICE_RATE / 4)
        self.written.append(data.copy())

    def stop(self) -> None:
        self.active = False

    def close(self) -> None:
        self.closed = True


DEVICES: list[dict[str, Any]] = [
    {"index": 0, "name": "Fake USB Mic", "max_input_channels": 1, "max_output_channels": 0,
     "default_samplerate": float(DEVICE_RATE)},
    {"index": 1, "name": "Fake Speaker", "max_input_channels": 0, "max_output_channels": 2,
     "default_samplerate": float(DEVICE_RATE)},
]


class FakeSoundDevice:
    def __init__(self, audio: np.ndarray, devices: list[dict[str, Any]] | None = None, input_kwargs: dict | None = None,
                 output_kwargs: dict | None = None) -> None:
        self._audio = audio
        self.devices = DEVICES if devices is None else devices
        self.inputs: list[FakeInputStream] = []
        self.outputs: list[FakeOutputStream] = []
        self._input_kwargs = input_kwargs or {}
        self._output_kwargs = output_kwargs or {}

    def query_devices(self, device=None, kind=None):
        if device is None and kind is None:
            return self.devices
        candidates = [d for d in self.devices if d[f"max_{kind}_channels"] > 0]
        if device is None:
            if not candidates:
                raise RuntimeError("Error querying device -1")
            return candidates[0]
        if isinstance(device, int):
            if device >= len(self.devices):
                raise RuntimeError(f"Error querying device {device}")
            return self.devices[device]
        for d in candidates:
            if device.lower() in d["name"].lower():
                return d
        raise ValueError(f"No {kind} device matching {device!r}")

    def InputStream(self, **kwargs):
        stream = FakeInputStream(self._audio, **kwargs, **self._input_kwargs)
        self.inputs.append(stream)
        return stream

    def OutputStream(self, **kwargs):
        stream = FakeOutputStream(**kwargs, **self._output_kwargs)
        self.outputs.append(stream)
        return stream


def _first_turn_at_device_rate() -> np.ndarray:
    audio, rate = sf.read(DEMO, dtype="float32")
    turn = audio[: int(5.2 * rate)]
    return (soxr.resample(turn, rate, DEVICE_RATE) * 32767).astype(np.int16)


@pytest.fixture
def no_model_loading(monkeypatch):
    """Device checks come before the models: loading one fails the test."""
    def refuse(_config):
        raise AssertionError("models were loaded before the devices were checked")
    monkeypatch.setattr(talk, "load_models", refuse)


def _cli_with(monkeypatch, sd, *argv: str) -> int:
    monkeypatch.setattr(audio_devices, "load_sounddevice", lambda: sd)   # --list-devices
    monkeypatch.setattr(talk, "load_sounddevice", lambda: sd)            # a session
    return cli.main(["talk", *argv])


# --- before anything is loaded: PortAudio, the device list, the device choice --------------

def test_device_listing_and_choice():
    sd = FakeSoundDevice(np.zeros(10, np.int16))
    assert "Fake USB Mic" in list_devices(sd)
    assert _device_arg("3") == 3 and _device_arg("USB") == "USB" and _device_arg(None) is None
    assert choose_device(sd, "usb", "input").device == "usb"
    assert choose_device(sd, "1", "output").sample_rate == DEVICE_RATE


def test_no_devices_is_said_not_printed_as_an_empty_line(monkeypatch, capsys):
    class NoDevices(FakeSoundDevice):
        def query_devices(self, device=None, kind=None):
            if device is None and kind is None:
                return ""        # what PortAudio prints with no card and no sound server
            raise RuntimeError("Error querying device -1")

    assert _cli_with(monkeypatch, NoDevices(np.zeros(1, np.int16), devices=[]), "--list-devices") == 2
    err = capsys.readouterr().err
    assert "no audio devices found" in err and "PulseAudio" in err and len(err.strip().splitlines()) == 1


def test_without_portaudio_the_fix_is_named(monkeypatch, tmp_path, capsys):
    (tmp_path / "sounddevice.py").write_text('raise OSError("PortAudio library not found")\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "sounddevice", raising=False)
    assert cli.main(["talk", "--list-devices"]) == 2
    err = capsys.readouterr().err
    assert "apt-get install libportaudio2" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("flag, value, kind", [("--input", "99", "input"), ("--input", "nosuch", "input"),
                                               ("--output", "nosuch", "output"), ("--input", "1", "input")])
def test_a_bad_device_is_one_line_listing_the_good_ones(monkeypatch, capsys, no_model_loading, tmp_path,
                                                        flag, value, kind):
    sd = FakeSoundDevice(np.zeros(1, np.int16))
    assert _cli_with(monkeypatch, sd, flag, value, "--out", str(tmp_path)) == 2
    out, err = capsys.readouterr()
    assert "Listening" not in out
    assert f"no {kind} device {value!r}" in err and len(err.strip().splitlines()) == 1
    assert ("Fake USB Mic" if kind == "input" else "Fake Speaker") in err
    assert not sd.inputs and not sd.outputs          # nothing was opened


def test_talk_help_says_the_default_is_half_duplex(capsys):
    with pytest.raises(SystemExit):
        cli.main(["talk", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--barge-in" in text and "half-duplex" in text and "reply.wav" in text


# --- half-duplex unless --barge-in ----------------------------------------------------------

def test_the_microphone_is_muted_while_the_agent_speaks_unless_barge_in(mock_config):
    sd = FakeSoundDevice(np.zeros(1, np.int16))
    for barge_in, muted_while_speaking in ((False, True), (True, False)):
        microphone, speaker = _talk_ends(mock_config, sd, TalkDevices(barge_in=barge_in))
        assert microphone._muted() is False
        speaker._busy_until = time.monotonic() + 5.0      # the agent is speaking
        assert microphone._muted() is muted_while_speaking
        speaker.flush()                                   # an interruption: the voice stops
        speaker._busy_until = time.monotonic() - 5.0
        assert microphone._muted() is False


# --- sessions with real ASR/TTS through fake devices (slow) ----------------------------------

@pytest.mark.slow
async def test_talk_through_fake_devices_then_ctrl_c(real_models, mock_config, tmp_path):
    sd = FakeSoundDevice(_first_turn_at_device_rate())
    worker, parts = build_talk_worker(SessionSpec(mock_config, real_models, tmp_path), sd,
                                      TalkDevices(input_device=0, output_device=1))
    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(worker)

    async def user_presses_ctrl_c_after_the_answer():
        for _ in range(1200):
            if parts.trace.turns and sd.outputs and sd.outputs[0].written:
                break
            await asyncio.sleep(0.1)
        await worker.cancel(reason="Ctrl-C")

    await asyncio.wait_for(asyncio.gather(runner.run(), user_presses_ctrl_c_after_the_answer()), 180)
    assert sd.inputs[0].kwargs["samplerate"] == DEVICE_RATE and sd.inputs[0].closed
    assert sd.outputs[0].kwargs["samplerate"] == DEVICE_RATE and sd.outputs[0].closed
    played = np.concatenate(sd.outputs[0].written)
    assert played.size > DEVICE_RATE * 0.2  # the reply, resampled from 22,050 Hz to the speaker's rate
    lines = (tmp_path / "trace.jsonl").read_text().splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert word_overlap(FIRST_TURN, record["asr"]["text"]) >= 0.7
    assert record["latency_ms"]["first_audio"] > 0


async def _talk(sd, config, models, out_dir, stop_when=None, devices=None) -> tuple[int, str, str]:
    """run_talk with a captured console; `stop_when(out_text)` true → the user presses Ctrl-C."""
    out, err = io.StringIO(), io.StringIO()
    stop = asyncio.Event()

    async def user():
        while stop_when is not None:
            if stop_when(out.getvalue()):
                await asyncio.sleep(0.3)       # mid-reply
                stop.set()
                return
            await asyncio.sleep(0.05)

    watcher = asyncio.ensure_future(user())
    try:
        rc = await asyncio.wait_for(run_talk(config, out_dir, TalkOptions(devices=devices or TalkDevices()),
                                             TalkEnvironment(sd=sd, console=TalkConsole(out, err), stop=stop,
                                                             models=models)), 90)
    finally:
        watcher.cancel()
    return rc, out.getvalue(), err.getvalue()


@pytest.mark.slow
async def test_a_spoken_turn_is_shown_and_recorded_and_ctrl_c_mid_reply_is_clean(real_models, mock_config,
                                                                                   tmp_path):
    sd = FakeSoundDevice(_first_turn_at_device_rate())
    rc, out, err = await _talk(sd, mock_config, real_models, tmp_path, lambda text: "\nagent " in text,
                               TalkDevices(input_device="usb", output_device="speaker"))
    assert rc == 0 and err == "", (out, err)
    lines = out.splitlines()
    listening = next(i for i, line in enumerate(lines) if line.startswith("Listening"))
    heard = next(i for i, line in enumerate(lines) if line.startswith("you"))
    assert listening < heard and sd.inputs and sd.outputs   # "Listening" once both streams ran
    assert word_overlap(FIRST_TURN, lines[heard]) >= 0.7
    assert any("party_size" in line and "4" in line for line in lines)      # the state diff, with its value
    assert any(line.startswith("agent") for line in lines)
    assert "\x1b[" not in out                                                # plain lines off a terminal
    assert "1 turn(s)" in out
    assert sd.inputs[0].closed and sd.outputs[0].closed
    reply, rate = sf.read(tmp_path / "reply.wav", dtype="int16")
    assert rate == DEVICE_RATE and np.abs(reply).max() > 1000               # the agent's voice as played
    heard_audio, heard_rate = sf.read(tmp_path / "heard.wav", dtype="int16")
    assert heard_rate == mock_config.audio.sample_rate and heard_audio.size > heard_rate * 4
    assert "user:" in (tmp_path / "transcript.txt").read_text()


@pytest.mark.slow
async def test_a_microphone_that_stops_ends_the_session_with_rc_1(real_models, mock_config, tmp_path,
                                                                  monkeypatch):
    monkeypatch.setattr(mic_transport, "DEVICE_SILENT_SECS", 0.5)
    sd = FakeSoundDevice(_first_turn_at_device_rate(), input_kwargs={"dies_after": 20})
    rc, out, err = await _talk(sd, mock_config, real_models, tmp_path)
    assert rc == 1
    assert "microphone stopped delivering audio" in err and "Traceback" not in err
    assert sd.inputs[0].closed and sd.outputs[0].closed


@pytest.mark.slow
async def test_a_speaker_that_fails_mid_reply_ends_the_session_with_rc_1(real_models, mock_config, tmp_path):
    sd = FakeSoundDevice(_first_turn_at_device_rate(), output_kwargs={"fails_after": 3})
    rc, out, err = await _talk(sd, mock_config, real_models, tmp_path)
    assert rc == 1
    assert "speaker failed while playing" in err and "Traceback" not in err
    assert sd.inputs[0].closed and sd.outputs[0].closed


@pytest.mark.slow
async def test_a_stream_that_will_not_start_fails_before_listening(real_models, mock_config, tmp_path):
    sd = FakeSoundDevice(np.zeros(1, np.int16), input_kwargs={"fails_to_start": True})
    out = io.StringIO()
    with pytest.raises(DeviceError, match="microphone .* could not be opened .*Device unavailable"):
        await run_talk(mock_config, tmp_path, environment=TalkEnvironment(sd=sd, models=real_models,
                                                                           console=TalkConsole(out, io.StringIO())))
    assert "Listening" not in out.getvalue()
    assert sd.outputs[0].closed                       # the speaker opened first is closed again


async def test_ctrl_c_while_the_models_load_stops_at_once(mock_config, tmp_path, monkeypatch):
    monkeypatch.setattr(talk, "load_models", lambda _config: time.sleep(30))
    sd = FakeSoundDevice(np.zeros(1, np.int16))
    stop = asyncio.Event()
    asyncio.get_running_loop().call_later(0.2, stop.set)
    out = io.StringIO()
    started = time.monotonic()
    rc = await run_talk(mock_config, tmp_path,
                        environment=TalkEnvironment(sd=sd, stop=stop, console=TalkConsole(out, io.StringIO())))
    assert rc == 130 and time.monotonic() - started < 10
    assert "stopped while loading models" in out.getvalue() and not sd.inputs
