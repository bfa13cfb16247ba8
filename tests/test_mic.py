"""The microphone path with a fake sounddevice: device rates, resampling, Ctrl-C."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import numpy as np
import pytest
import soundfile as sf
import soxr
from pipecat.workers.runner import WorkerRunner

from monologue.pipeline.mic import _device_arg, build_talk_worker, list_devices

from fakes import DEMO, word_overlap

pytestmark = pytest.mark.slow

DEVICE_RATE = 48000


class FakeInputStream:
    """Calls the callback from its own thread, like PortAudio, at 4× real time."""

    def __init__(self, audio: np.ndarray, callback, blocksize: int, **kwargs) -> None:
        self._audio, self._callback, self._block = audio, callback, blocksize
        self.kwargs = kwargs
        self._stop = threading.Event()
        self.closed = False

    def start(self) -> None:
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        for i in range(0, self._audio.size, self._block):
            if self._stop.is_set():
                return
            block = self._audio[i:i + self._block].reshape(-1, 1)
            self._callback(block, block.shape[0], None, None)
            time.sleep(self._block / DEVICE_RATE / 4)
        while not self._stop.wait(self._block / DEVICE_RATE / 4):  # the room stays quiet
            self._callback(np.zeros((self._block, 1), np.int16), self._block, None, None)

    def stop(self) -> None:
        self._stop.set()

    def close(self) -> None:
        self.closed = True


class FakeOutputStream:
    def __init__(self, **kwargs) -> None:
        self.kwargs = kwargs
        self.written: list[np.ndarray] = []
        self.closed = False

    def start(self) -> None:
        pass

    def write(self, data: np.ndarray) -> None:
        self.written.append(data.copy())

    def stop(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


class FakeSoundDevice:
    def __init__(self, audio: np.ndarray) -> None:
        self._audio = audio
        self.inputs: list[FakeInputStream] = []
        self.outputs: list[FakeOutputStream] = []

    def query_devices(self, device=None, kind=None):
        if device is None and kind is None:
            return "  0 Fake USB Mic, 1 in, 0 out\n  1 Fake Speaker, 0 in, 2 out"
        return {"name": f"fake {kind}", "default_samplerate": float(DEVICE_RATE)}

    def InputStream(self, **kwargs):
        stream = FakeInputStream(self._audio, **kwargs)
        self.inputs.append(stream)
        return stream

    def OutputStream(self, **kwargs):
        stream = FakeOutputStream(**kwargs)
        self.outputs.append(stream)
        return stream


def _first_turn_at_device_rate() -> np.ndarray:
    audio, rate = sf.read(DEMO, dtype="float32")
    turn = audio[: int(5.2 * rate)]
    return (soxr.resample(turn, rate, DEVICE_RATE) * 32767).astype(np.int16)


async def test_talk_through_fake_devices_then_ctrl_c(real_models, mock_config, tmp_path):
    sd = FakeSoundDevice(_first_turn_at_device_rate())
    worker, parts = build_talk_worker(mock_config, real_models, tmp_path, sd, input_device=0, output_device=1)
    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(worker)

    async def user_presses_ctrl_c_after_the_answer():
        for _ in range(300):
            if parts.trace.turns and sd.outputs and sd.outputs[0].written:
                break
            await asyncio.sleep(0.1)
        await worker.cancel(reason="Ctrl-C")

    await asyncio.wait_for(asyncio.gather(runner.run(), user_presses_ctrl_c_after_the_answer()), 60)
    assert sd.inputs[0].kwargs["samplerate"] == DEVICE_RATE and sd.inputs[0].closed
    assert sd.outputs[0].kwargs["samplerate"] == DEVICE_RATE and sd.outputs[0].closed
    played = np.concatenate(sd.outputs[0].written)
    assert played.size > DEVICE_RATE * 0.5  # the reply, resampled from 22,050 Hz to the speaker's rate
    lines = (tmp_path / "trace.jsonl").read_text().splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert word_overlap("I'd like to book a table for four people on Saturday evening", record["asr"]["text"]) >= 0.7
    assert record["latency_ms"]["first_audio"] > 0


def test_device_listing_and_choice():
    assert "Fake USB Mic" in list_devices(FakeSoundDevice(np.zeros(10, np.int16)))
    assert _device_arg("3") == 3 and _device_arg("USB") == "USB" and _device_arg(None) is None
