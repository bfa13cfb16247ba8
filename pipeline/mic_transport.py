"""The talk session's two ends on this machine's sound devices: `MicrophoneSource` (audio in,
16 kHz frames out) and `SpeakerOutput` (the agent's voice out), as pipecat processors.

The device runs at its own rate; audio is resampled to 16 kHz for VAD/ASR and from the
voice's rate to the speaker's. There is no echo cancelling here, so by default the call is
half-duplex: while the agent speaks the microphone hears zeros (they keep the VAD's
timeline), and the agent never answers itself through the speaker. With `barge_in` the
microphone stays open and the user's speech interrupts the agent: use headphones.

The speaker is fed by a writer thread in 50 ms blocking writes (PortAudio then keeps the
device fed from C while Python is busy; a callback stream starved under ASR/TTS load), and
a stop waits for that thread before closing the stream, so no write is cut half-way.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from loguru import logger
from pipecat.frames.frames import (
    CancelFrame,
    CancelWorkerFrame,
    EndFrame,
    Frame,
    InputAudioRawFrame,
    InterruptionFrame,
    StartFrame,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from monologue.pipeline.audio_devices import DeviceError, StreamFactory, not_opened
from monologue.pipeline.audio_io import Resampler, WavRecorder
from monologue.processors.frames import ReplyAudioFrame, Turn

# A device that delivers no audio for this long is gone (unplugged, or the sound server stopped).
DEVICE_SILENT_SECS = 3.0
# After the last sample leaves the speaker, the room still echoes it for a moment.
ECHO_TAIL_SECS = 0.3
# The device's own buffers: room for the Python side to be late (ASR and TTS share the CPU)
# without a click; the speaker's also bounds how much of a cut reply is still heard.
INPUT_LATENCY_SECS = 0.2
OUTPUT_LATENCY_SECS = 0.15
WRITE_CHUNK_SECS = 0.05        # what the speaker's writer hands PortAudio at a time


def _stream_active(stream: Any) -> bool:
    return bool(getattr(stream, "active", True))


def close_stream(stream: Any, device: str) -> None:
    """Stop and close a PortAudio stream; a device already gone leaves nothing to close."""
    if stream is None:
        return
    try:
        stream.abort() if hasattr(stream, "abort") else stream.stop()
        stream.close()
    except Exception as exc:
        logger.debug(f"{device}: closing: {exc}")


@dataclass(frozen=True)
class MicrophoneOptions:
    """Which microphone is opened, at what rates, and where what it hears is kept."""

    device: int | str | None = None     # a PortAudio index or part of a name; None: the default
    sample_rate: int | None = None      # the device's own rate; None: its default
    target_rate: int = 16000            # what VAD and ASR take
    chunk_ms: int = 20
    record: Path | None = None          # heard.wav, at `target_rate`; None: nothing is written


class MicrophoneSource(FrameProcessor):
    """One job: microphone audio in, 16 kHz `InputAudioRawFrame`s out.

    It also watches the devices: a microphone (or, through `watch`, a speaker) that stops
    delivering audio ends the session with `failure` set, instead of a silent hang.
    `muted` true: the microphone hears zeros (half-duplex, while the agent speaks).
    """

    def __init__(self, sd: StreamFactory, options: MicrophoneOptions, *, muted: Callable[[], bool] = lambda: False,
                 watch: Callable[[], str] = lambda: "", on_listening: Callable[[], None] | None = None) -> None:
        super().__init__()
        self._sd = sd
        self._device = options.device
        self._target_rate = options.target_rate
        self._chunk_ms = options.chunk_ms
        self._rate = options.sample_rate
        self._muted = muted
        self._watch = watch
        self._on_listening = on_listening
        self._record_path = options.record
        self._recorder: WavRecorder | None = None
        self._stream: Any = None
        self._blocks: queue.SimpleQueue[np.ndarray] = queue.SimpleQueue()
        self._wakeup = asyncio.Event()      # the audio thread's "a block is waiting"
        self._loop: asyncio.AbstractEventLoop | None = None
        self._last_block = 0.0
        self._pump_task: asyncio.Task | None = None
        self._stop_requested = False
        self.failure = ""           # why the session ended early, in words; "" when it did not

    # The stream: opened before the pipeline starts (run_talk) or when it starts (tests).
    def open(self) -> None:
        """Open and start the input stream; DeviceError when the device refuses."""
        if self._stream is not None:
            return
        if self._rate is None:
            self._rate = int(self._sd.query_devices(self._device, "input")["default_samplerate"])
        rate = self._rate
        resample = Resampler(rate, self._target_rate)
        self._last_block = time.monotonic()

        def callback(indata: np.ndarray, frames: int, _time: Any, status: Any) -> None:
            if status:
                logger.debug(f"microphone: {status}")
            mono = indata.mean(axis=1) if indata.ndim == 2 else indata
            self._blocks.put(resample(np.asarray(mono, dtype=np.int16)))
            self._last_block = time.monotonic()
            if self._loop is not None:
                try:
                    self._loop.call_soon_threadsafe(self._wakeup.set)
                except RuntimeError:    # the loop closed while the stream was stopping
                    pass

        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:   # opened outside a loop (a test): the pump polls instead
            self._loop = None
        try:
            self._stream = self._sd.InputStream(
                device=self._device, samplerate=rate, channels=1, dtype="int16",
                blocksize=int(rate * self._chunk_ms / 1000), callback=callback, latency=INPUT_LATENCY_SECS,
            )
            self._stream.start()
        except Exception as exc:
            self._close_stream()
            raise not_opened("microphone", self._device, rate, exc, "--input") from None

    def request_stop(self) -> None:
        """End the session at once (Ctrl-C): the worker is cancelled, streams close in order."""
        self._stop_requested = True
        self._wakeup.set()

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, StartFrame):
            await self.push_frame(frame, direction)
            await self._start()
            return
        if isinstance(frame, (EndFrame, CancelFrame)):
            await self._stop()
        await self.push_frame(frame, direction)

    async def _start(self) -> None:
        if self._record_path is not None:
            self._recorder = WavRecorder(self._record_path, self._target_rate)
        try:
            self.open()
        except DeviceError as exc:
            await self._end(str(exc))
            return
        self._pump_task = self.create_task(self._pump(), name="microphone-pump")

    async def _end(self, failure: str = "") -> None:
        self.failure = self.failure or failure
        await self.push_frame(CancelWorkerFrame(reason=failure or "stopped"), FrameDirection.UPSTREAM)

    async def _pump(self) -> None:
        listening = False
        while True:
            try:
                await asyncio.wait_for(self._wakeup.wait(), timeout=0.5)
            except TimeoutError:
                pass
            self._wakeup.clear()
            if self._stop_requested:
                await self._end()
                return
            failure = self._check_devices()
            if failure:
                await self._end(failure)
                return
            while True:
                try:
                    samples = self._blocks.get_nowait()
                except queue.Empty:
                    break
                if not listening:
                    listening = True
                    if self._on_listening is not None:
                        self._on_listening()
                if self._muted():
                    samples = np.zeros_like(samples)
                if samples.size:
                    if self._recorder is not None:
                        self._recorder.put(samples)
                    await self.push_frame(InputAudioRawFrame(audio=samples.tobytes(),
                                                             sample_rate=self._target_rate, num_channels=1))

    def _check_devices(self) -> str:
        if self._stream is not None:
            silent = time.monotonic() - self._last_block
            if not _stream_active(self._stream) or silent > DEVICE_SILENT_SECS:
                return (f"the microphone stopped delivering audio ({silent:.1f} s without a block): "
                        "was it unplugged, or did the sound server stop? Check `monologue talk --list-devices`")
        return self._watch()

    def _close_stream(self) -> None:
        stream, self._stream = self._stream, None
        close_stream(stream, "microphone")

    async def _stop(self) -> None:
        self._close_stream()
        if self._pump_task is not None:
            await self.cancel_task(self._pump_task)
            self._pump_task = None
        if self._recorder is not None:
            self._recorder.close()

    async def cleanup(self) -> None:
        await self._stop()
        await super().cleanup()


class SpeakerOutput(FrameProcessor):
    """One job: play the agent's voice on the speaker; `speaking` while it is audible.

    A writer thread hands PortAudio short chunks with blocking writes: PortAudio then keeps
    the device fed from C even while Python is busy (ASR, TTS), and a stop waits at most one
    chunk. An `InterruptionFrame` (barge-in) drops what is queued, so the voice stops at once.
    """

    def __init__(self, sd: StreamFactory, *, device: int | str | None, sample_rate: int | None = None,
                 record: Path | None = None) -> None:
        super().__init__()
        self._sd = sd
        self._device = device
        self._rate = sample_rate or 0
        self._stream: Any = None
        self._resample: Resampler | None = None
        self._pending: queue.SimpleQueue[np.ndarray | None] = queue.SimpleQueue()
        self._generation = 0          # bumped by an interruption: chunks queued before it are dropped
        self._closing = threading.Event()
        self._thread: threading.Thread | None = None
        self._record_path = record
        self._recorder: WavRecorder | None = None
        self._latency = 0.0
        self._opened_at = 0.0
        self._busy_until = 0.0
        self._turns_started: set[int] = set()
        self.failure = ""

    @property
    def speaking(self) -> bool:
        """Audio is queued or still leaving the speaker, or left it so recently that the room carries it."""
        return time.monotonic() < self._busy_until + self._latency + ECHO_TAIL_SECS

    def open(self) -> None:
        """Open and start the output stream; DeviceError when the device refuses."""
        if self._stream is not None:
            return
        if not self._rate:
            self._rate = int(self._sd.query_devices(self._device, "output")["default_samplerate"])
        try:
            self._stream = self._sd.OutputStream(device=self._device, samplerate=self._rate, channels=1,
                                                 dtype="int16", latency=OUTPUT_LATENCY_SECS)
            self._stream.start()
        except Exception as exc:
            self._close_stream()
            raise not_opened("speaker", self._device, self._rate, exc, "--output") from None
        self._latency = float(getattr(self._stream, "latency", 0.0) or 0.0)
        self._opened_at = time.monotonic()
        if self._record_path is not None:
            self._recorder = WavRecorder(self._record_path, self._rate)
        self._closing.clear()
        self._thread = threading.Thread(target=self._writer, name="speaker", daemon=True)
        self._thread.start()

    def health(self) -> str:
        """Why the speaker is gone, in words; "" while it plays (or was never opened)."""
        if self._stream is not None and not self.failure and not _stream_active(self._stream):
            self.failure = ("the speaker stopped (was it unplugged, or did the sound server stop?); "
                            "check `monologue talk --list-devices`")
        return self.failure

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, StartFrame):
            try:
                self.open()
            except DeviceError as exc:
                self.failure = str(exc)
                await self.push_frame(CancelWorkerFrame(reason=self.failure), FrameDirection.UPSTREAM)
        elif isinstance(frame, ReplyAudioFrame):
            self._play(frame)
        elif isinstance(frame, InterruptionFrame):
            self.flush()
        elif isinstance(frame, (EndFrame, CancelFrame)):
            self.close()
        await self.push_frame(frame, direction)

    def _play(self, frame: ReplyAudioFrame) -> None:
        if self._stream is None:
            return
        turn: Turn = frame.turn
        now = time.monotonic()
        turn.mark("first_audio", time.perf_counter())
        if turn.turn_id not in self._turns_started:
            # Where the reply is heard on the session's clock: after what is still queued.
            self._turns_started.add(turn.turn_id)
            turn.tts.session_start_secs = round(max(self._busy_until, now) - self._opened_at + self._latency, 3)
        if self._resample is None or self._resample.in_rate != frame.sample_rate:
            self._resample = Resampler(frame.sample_rate, self._rate)
        samples = self._resample(np.frombuffer(frame.audio, dtype=np.int16))
        self._busy_until = max(self._busy_until, now) + samples.size / self._rate
        step = max(int(self._rate * WRITE_CHUNK_SECS), 1)
        for at in range(0, samples.size, step):
            self._pending.put(samples[at:at + step])

    def flush(self) -> None:
        """Drop what is queued (barge-in): the voice stops after what the device already holds."""
        while True:
            try:
                self._pending.get_nowait()
            except queue.Empty:
                break
        self._busy_until = min(self._busy_until, time.monotonic())

    def _writer(self) -> None:
        while not self._closing.is_set():
            try:
                chunk = self._pending.get(timeout=0.1)
            except queue.Empty:
                continue
            stream = self._stream
            if chunk is None or stream is None:
                return
            try:
                stream.write(chunk.reshape(-1, 1))
            except Exception as exc:
                if not self._closing.is_set():
                    self.failure = (f"the speaker failed while playing ({exc}): was it unplugged, or did the "
                                    "sound server stop? Check `monologue talk --list-devices`")
                return
            self._record(chunk)

    def _record(self, chunk: np.ndarray) -> None:
        """reply.wav on the session's clock: silence where the agent was quiet, then what it said."""
        if self._recorder is None:
            return
        self._recorder.put_at(chunk, int((time.monotonic() - self._opened_at) * self._rate) - chunk.size)

    def _close_stream(self) -> None:
        stream, self._stream = self._stream, None
        close_stream(stream, "speaker")

    def close(self) -> None:
        """Stop the writer first (it finishes at most one short chunk), then the stream."""
        self.flush()
        self._closing.set()
        if self._thread is not None:
            self._pending.put(None)
            self._thread.join(timeout=2.0)
            self._thread = None
        self._close_stream()
        if self._recorder is not None:
            if self._opened_at:
                self._record(np.zeros(0, dtype=np.int16))
            self._recorder.close()

    async def cleanup(self) -> None:
        self.close()
        await super().cleanup()
