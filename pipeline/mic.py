"""Talk to the agent through a microphone and speaker with sounddevice (P3).

The device runs at its own rate; audio is resampled to 16 kHz for VAD/ASR and from
the voice's rate to the speaker's. Half-duplex for now: while the agent speaks the
microphone is muted (zeros keep the VAD's timeline), so it never answers itself.
"""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from loguru import logger
from pipecat.frames.frames import (
    CancelFrame,
    EndFrame,
    Frame,
    InputAudioRawFrame,
    StartFrame,
)
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor

from monologue.configs import MonologueConfig
from monologue.memory.longterm.engine import LongTermMemory
from monologue.memory.stores.protocols import StateStore
from monologue.memory.working.engine import WorkingMemory
from monologue.pipeline.builder import (
    AgentModels,
    AgentProcessors,
    build_processors,
    load_models,
    make_worker,
    user_memory,
)
from monologue.pipeline.session import Session, SessionHooks, SessionSpec, run_session, session_pipeline
from monologue.processors.frames import ReplyAudioFrame

SD_REQUIREMENT = "sounddevice==0.5.6 (and the system's PortAudio library, e.g. apt-get install libportaudio2)"


class StreamFactory(Protocol):
    """What the mic pipeline needs from sounddevice; tests pass a fake."""

    def InputStream(self, **kwargs: Any) -> Any: ...
    def OutputStream(self, **kwargs: Any) -> Any: ...
    def query_devices(self, device: Any = None, kind: str | None = None) -> Any: ...


def _sounddevice() -> Any:
    try:
        import sounddevice
    except (ImportError, OSError) as exc:
        raise RuntimeError(f"microphone needs {SD_REQUIREMENT}: {exc}") from None
    return sounddevice


def list_devices(sd: StreamFactory | None = None) -> str:
    return str((sd or _sounddevice()).query_devices())


def _device_arg(value: str | None) -> int | str | None:
    if value is None or value == "":
        return None
    return int(value) if value.isdigit() else value


def _device_rate(sd: StreamFactory, device: int | str | None, kind: str) -> int:
    info = sd.query_devices(device, kind)
    return int(info["default_samplerate"])


class Resampler:
    """Streaming resampler (soxr keeps filter state across chunks)."""

    def __init__(self, in_rate: int, out_rate: int) -> None:
        import soxr

        self.in_rate = in_rate
        self._stream = None if in_rate == out_rate else soxr.ResampleStream(in_rate, out_rate, 1, dtype="int16")

    def __call__(self, samples: np.ndarray, last: bool = False) -> np.ndarray:
        if self._stream is None:   # same rate
            return samples
        return self._stream.resample_chunk(samples, last=last)


class MicrophoneSource(FrameProcessor):
    """One job: microphone audio in, 16 kHz `InputAudioRawFrame`s out."""

    def __init__(self, sd: StreamFactory, *, device: int | str | None, target_rate: int = 16000,
                 chunk_ms: int = 20, muted: Callable[[], bool] = lambda: False) -> None:
        super().__init__()
        self._sd = sd
        self._device = device
        self._target_rate = target_rate
        self._chunk_ms = chunk_ms
        self._muted = muted
        self._stream: Any = None
        self._queue: asyncio.Queue[np.ndarray] | None = None
        self._pump_task: asyncio.Task | None = None

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, StartFrame):
            await self.push_frame(frame, direction)
            self._start()
            return
        if isinstance(frame, (EndFrame, CancelFrame)):
            await self._stop()
        await self.push_frame(frame, direction)

    def _start(self) -> None:
        loop = asyncio.get_running_loop()
        self._queue = asyncio.Queue(maxsize=500)
        rate = _device_rate(self._sd, self._device, "input")
        resample = Resampler(rate, self._target_rate)
        q = self._queue

        def callback(indata: np.ndarray, frames: int, _time: Any, status: Any) -> None:
            if status:
                logger.debug(f"microphone: {status}")
            mono = indata.mean(axis=1) if indata.ndim == 2 else indata
            samples = resample(np.asarray(mono, dtype=np.int16))
            # put_nowait from the audio thread would race the loop; hand it over instead.
            loop.call_soon_threadsafe(_offer, q, samples)

        self._stream = self._sd.InputStream(
            device=self._device, samplerate=rate, channels=1, dtype="int16",
            blocksize=int(rate * self._chunk_ms / 1000), callback=callback,
        )
        self._stream.start()
        self._pump_task = self.create_task(self._pump(), name="microphone-pump")

    async def _pump(self) -> None:
        assert self._queue is not None
        while True:
            samples = await self._queue.get()
            if self._muted():
                samples = np.zeros_like(samples)
            if samples.size:
                await self.push_frame(InputAudioRawFrame(audio=samples.tobytes(),
                                                         sample_rate=self._target_rate, num_channels=1))

    async def _stop(self) -> None:
        if self._stream is not None:
            self._stream.stop()
            self._stream.close()
            self._stream = None
        if self._pump_task is not None:
            await self.cancel_task(self._pump_task)
            self._pump_task = None

    async def cleanup(self) -> None:
        await self._stop()
        await super().cleanup()


def _offer(q: asyncio.Queue[np.ndarray], samples: np.ndarray) -> None:
    if q.full():  # the pipeline fell behind: drop the oldest audio, keep the newest
        q.get_nowait()
    q.put_nowait(samples)


class SpeakerOutput(FrameProcessor):
    """One job: play the agent's voice on the speaker; `speaking` while audio is queued."""

    def __init__(self, sd: StreamFactory, *, device: int | str | None) -> None:
        super().__init__()
        self._sd = sd
        self._device = device
        self._stream: Any = None
        self._rate = 0
        self._resample: Resampler | None = None
        self._pending: queue.Queue[np.ndarray | None] = queue.Queue()
        self._busy_until = 0.0
        self._thread: threading.Thread | None = None

    @property
    def speaking(self) -> bool:
        return time.monotonic() < self._busy_until + 0.3

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, StartFrame):
            self._open()
        elif isinstance(frame, ReplyAudioFrame):
            frame.turn.mark("first_audio", time.perf_counter())
            self._play(frame)
        elif isinstance(frame, (EndFrame, CancelFrame)):
            self._close()
        await self.push_frame(frame, direction)

    def _open(self) -> None:
        self._rate = _device_rate(self._sd, self._device, "output")
        self._stream = self._sd.OutputStream(device=self._device, samplerate=self._rate,
                                             channels=1, dtype="int16")
        self._stream.start()
        # Blocking writes happen on this thread, never on the event loop.
        self._thread = threading.Thread(target=self._writer, name="speaker", daemon=True)
        self._thread.start()

    def _play(self, frame: ReplyAudioFrame) -> None:
        if self._resample is None or self._resample.in_rate != frame.sample_rate:
            self._resample = Resampler(frame.sample_rate, self._rate)
        samples = self._resample(np.frombuffer(frame.audio, dtype=np.int16))
        now = time.monotonic()
        self._busy_until = max(self._busy_until, now) + samples.size / self._rate
        self._pending.put(samples)

    def _writer(self) -> None:
        while True:
            samples = self._pending.get()
            if samples is None:
                return
            try:
                self._stream.write(samples.reshape(-1, 1))
            except Exception as exc:  # device unplugged: report once and stop playing
                logger.error(f"speaker: {exc}")
                return

    def _close(self) -> None:
        if self._thread is not None:
            self._pending.put(None)
            self._thread.join(timeout=2.0)
            self._thread = None
        if self._stream is not None:
            self._stream.stop()
            self._stream.close()
            self._stream = None

    async def cleanup(self) -> None:
        self._close()
        await super().cleanup()


def _talk_ends(config: MonologueConfig, sd: StreamFactory, *, input_device: int | str | None = None,
               output_device: int | str | None = None) -> tuple[MicrophoneSource, SpeakerOutput]:
    """The microphone and speaker of a talk session; the microphone hears zeros while the agent speaks."""
    speaker = SpeakerOutput(sd, device=output_device)
    mic = MicrophoneSource(sd, device=input_device, target_rate=config.audio.sample_rate,
                           chunk_ms=config.audio.chunk_ms, muted=lambda: speaker.speaking)
    return mic, speaker


def build_talk_worker(config: MonologueConfig, models: AgentModels, out_dir: Path, sd: StreamFactory, *,
                      input_device: int | str | None = None, output_device: int | str | None = None,
                      memory: WorkingMemory | None = None,
                      long_term: LongTermMemory | None = None) -> tuple[Any, AgentProcessors]:
    """The talk pipeline as a worker, without a session around it: for a caller that runs and
    stops the worker itself (tests); `run_talk` runs the same pipeline through `run_session`."""
    mic, speaker = _talk_ends(config, sd, input_device=input_device, output_device=output_device)
    parts = build_processors(config, models, out_dir, memory=memory, long_term=long_term)
    return make_worker(session_pipeline(parts, mic, speaker)), parts


async def run_talk(config: MonologueConfig, out_dir: Path, *, input_device: str | None = None,
                   output_device: str | None = None, sd: StreamFactory | None = None,
                   session_id: str | None = None, store: StateStore | None = None,
                   user_id: str | None = None, store_path: str | None = None, at: float | None = None,
                   situation: dict[str, str] | None = None) -> int:
    sd = sd or _sounddevice()
    models = await asyncio.to_thread(load_models, config)
    long_term = await asyncio.to_thread(user_memory, config, models, user_id, store_path, at)
    if long_term is not None:
        long_term.situation = dict(situation or {})
    mic, speaker = _talk_ends(config, sd, input_device=_device_arg(input_device),
                              output_device=_device_arg(output_device))
    spec = SessionSpec(config, models, out_dir, session_id=session_id, store=store, long_term=long_term,
                       handle_sigint=True)

    def show_start(session: Session) -> None:
        if session.memory is not None:
            print(f"session {session.memory.session_id}", flush=True)
        if session.long_term is not None:   # the opening is spoken through the speaker before listening starts
            print(f"agent ▸ {session.opening}", flush=True)
        print("Listening — speak, and press Ctrl-C to stop.", flush=True)

    def show_end(session: Session) -> None:
        print(f"\n{len(session.turns)} turn(s); trace in {out_dir / 'trace.jsonl'}", flush=True)

    await run_session(spec, mic, speaker, hooks=SessionHooks(on_start=show_start, on_end=show_end))
    return 0
