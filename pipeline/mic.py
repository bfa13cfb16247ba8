"""Talk to the agent through a microphone and speaker with sounddevice (P3).

    check PortAudio and both devices → load models → open and start both streams
    → "Listening" once the microphone delivers audio → session → close mic, then speaker

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
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

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

from monologue.configs import MonologueConfig
from monologue.memory.longterm.engine import LongTermMemory
from monologue.memory.stores.private_files import private_file, private_folder
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
from monologue.pipeline.talk_console import TalkConsole
from monologue.processors.frames import ReplyAudioFrame, TurnRecord

# A device that delivers no audio for this long is gone (unplugged, or the sound server stopped).
DEVICE_SILENT_SECS = 3.0
# After the last sample leaves the speaker, the room still echoes it for a moment.
ECHO_TAIL_SECS = 0.3
# The device's own buffers: room for the Python side to be late (ASR and TTS share the CPU)
# without a click; the speaker's also bounds how much of a cut reply is still heard.
INPUT_LATENCY_SECS = 0.2
OUTPUT_LATENCY_SECS = 0.15
WRITE_CHUNK_SECS = 0.05        # what the speaker's writer hands PortAudio at a time

T = TypeVar("T")


class DeviceError(RuntimeError):
    """PortAudio or an audio device cannot be used; the message says which and what to do."""


class StreamFactory(Protocol):
    """What the talk path needs from sounddevice; tests pass a fake."""

    def InputStream(self, **kwargs: Any) -> Any: ...
    def OutputStream(self, **kwargs: Any) -> Any: ...
    def query_devices(self, device: Any = None, kind: str | None = None) -> Any: ...


def _sounddevice() -> Any:
    try:
        import sounddevice
    except OSError as exc:   # the Python package is there, the PortAudio library is not
        raise DeviceError(f"the microphone needs the PortAudio library ({exc}): install it with "
                          "`apt-get install libportaudio2` (macOS: `brew install portaudio`)") from None
    except ImportError as exc:
        raise DeviceError(f"the microphone needs the sounddevice package ({exc}): "
                          "`pip install sounddevice==0.5.6`") from None
    _quiet_alsa()
    return sounddevice


_alsa_handler: Any = None


def _quiet_alsa() -> None:
    """ALSA prints xrun notices ("underrun occurred") to stderr from C, between a person's
    lines; send them to the debug log (`monologue -v`) instead."""
    global _alsa_handler
    if _alsa_handler is not None or not sys.platform.startswith("linux"):
        return
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("asound")
    try:
        asound = ctypes.CDLL(name or "libasound.so.2")
    except OSError:
        return
    # The C handler is variadic; its fixed arguments are all a log line needs.
    handler_type = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
                                    ctypes.c_char_p)

    def to_debug_log(file: bytes, line: int, function: bytes, err: int, fmt: bytes) -> None:
        logger.debug(f"ALSA {function.decode(errors='replace')}: {fmt.decode(errors='replace')} ({err})")

    _alsa_handler = handler_type(to_debug_log)
    asound.snd_lib_error_set_handler(_alsa_handler)


NO_DEVICES = ("no audio devices found: PortAudio sees no sound card and no sound server. "
              "Start PulseAudio or PipeWire (or plug in a device) and run `monologue talk --list-devices` "
              "again; without a sound card, a PulseAudio null sink works (see the README)")


def _all_devices(sd: StreamFactory) -> list[dict[str, Any]]:
    """Every device PortAudio lists, as dicts with their index; [] where the fake lists none."""
    listed = sd.query_devices()
    if isinstance(listed, str):
        return []
    return [dict(info, index=info.get("index", i)) for i, info in enumerate(listed)]


def list_devices(sd: StreamFactory | None = None) -> str:
    """PortAudio's device table (`>` default input, `<` default output); DeviceError when empty."""
    sd = sd or _sounddevice()
    text = str(sd.query_devices()).rstrip()
    if not text:
        raise DeviceError(NO_DEVICES)
    return text


def _device_arg(value: str | int | None) -> int | str | None:
    if value is None or value == "":
        return None
    if isinstance(value, int):
        return value
    return int(value) if value.strip().isdigit() else value


@dataclass(frozen=True)
class DeviceChoice:
    """A device the session will open: its PortAudio index (or None for the default) and rate."""

    kind: str            # input | output
    device: int | str | None
    name: str
    sample_rate: int


def choose_device(sd: StreamFactory, value: str | int | None, kind: str) -> DeviceChoice:
    """Check that `value` (index, part of a name, or None for the default) is a usable `kind`
    device, before any model is loaded; DeviceError says which devices there are."""
    device = _device_arg(value)
    flag = "--input" if kind == "input" else "--output"
    try:
        info = sd.query_devices(device, kind)
    except Exception as exc:
        raise DeviceError(_no_such_device(sd, value, kind, flag, str(exc))) from None
    if int(info.get(f"max_{kind}_channels", 1)) <= 0:
        raise DeviceError(_no_such_device(sd, value, kind, flag, f"{info.get('name')!r} has no {kind} channels"))
    rate = int(info["default_samplerate"])
    check = getattr(sd, f"check_{kind}_settings", None)
    if check is not None:
        try:
            check(device=device, samplerate=rate, channels=1, dtype="int16")
        except Exception as exc:
            raise DeviceError(f"{kind} device {info.get('name')!r} cannot record/play 16-bit mono at {rate} Hz "
                              f"({exc}); pick another with {flag} (see `monologue talk --list-devices`)") from None
    # An index pins the device; a name is kept as given so that PortAudio resolves it the same way.
    return DeviceChoice(kind, device, str(info.get("name", device)), rate)


def _no_such_device(sd: StreamFactory, value: str | int | None, kind: str, flag: str, why: str) -> str:
    try:
        devices = [d for d in _all_devices(sd) if int(d.get(f"max_{kind}_channels", 0)) > 0]
    except Exception:
        devices = []
    if value is None:
        what = f"no default {kind} device ({why})"
    else:
        what = f"no {kind} device {str(value)!r} ({why})"
    if not devices:
        return f"cannot use {flag} {value}: {NO_DEVICES}" if value is not None else NO_DEVICES
    choices = ", ".join(f"{d['index']} {d['name']!r}" for d in devices)
    return f"{what}; the {kind} devices are: {choices}. Pass {flag} with an index or part of a name"


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


class WavRecorder:
    """One job: write int16 mono chunks to a WAV file from a thread of its own, so that an
    audio callback only hands a chunk over and never waits on the disk."""

    def __init__(self, path: Path, sample_rate: int) -> None:
        import soundfile as sf

        private_folder(path.parent)
        self.path = path
        self._file = sf.SoundFile(str(private_file(path)), "w", samplerate=sample_rate, channels=1, subtype="PCM_16")
        self._chunks: queue.SimpleQueue[np.ndarray | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._write, name=f"record-{path.name}", daemon=True)
        self._thread.start()

    def put(self, samples: np.ndarray) -> None:
        self._chunks.put(samples)

    def _write(self) -> None:
        while (chunk := self._chunks.get()) is not None:
            self._file.write(chunk)

    def close(self) -> None:
        if self._file.closed:
            return
        self._chunks.put(None)
        self._thread.join(timeout=5.0)
        self._file.close()


def _stream_active(stream: Any) -> bool:
    return bool(getattr(stream, "active", True))


class MicrophoneSource(FrameProcessor):
    """One job: microphone audio in, 16 kHz `InputAudioRawFrame`s out.

    It also watches the devices: a microphone (or, through `watch`, a speaker) that stops
    delivering audio ends the session with `failure` set, instead of a silent hang.
    """

    def __init__(self, sd: StreamFactory, *, device: int | str | None, target_rate: int = 16000,
                 chunk_ms: int = 20, muted: Callable[[], bool] = lambda: False,
                 watch: Callable[[], str] = lambda: "", on_listening: Callable[[], None] | None = None,
                 record: Path | None = None, sample_rate: int | None = None) -> None:
        super().__init__()
        self._sd = sd
        self._device = device
        self._target_rate = target_rate
        self._chunk_ms = chunk_ms
        self._rate = sample_rate
        self._muted = muted
        self._watch = watch
        self._on_listening = on_listening
        self._record_path = record
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
            raise _not_opened("microphone", self._device, rate, exc, "--input") from None

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
        if stream is not None:
            try:
                stream.abort() if hasattr(stream, "abort") else stream.stop()
                stream.close()
            except Exception as exc:   # a device already gone: nothing left to close
                logger.debug(f"microphone: closing: {exc}")

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
        self._recorded = 0            # samples in reply.wav so far: gaps are filled with silence
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
            raise _not_opened("speaker", self._device, self._rate, exc, "--output") from None
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
        turn: TurnRecord = frame.turn
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
        due = int((time.monotonic() - self._opened_at) * self._rate) - chunk.size
        if due > self._recorded:
            self._recorder.put(np.zeros(due - self._recorded, dtype=np.int16))
            self._recorded = due
        self._recorder.put(chunk)
        self._recorded += chunk.size

    def _close_stream(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            try:
                stream.abort() if hasattr(stream, "abort") else stream.stop()
                stream.close()
            except Exception as exc:
                logger.debug(f"speaker: closing: {exc}")

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


def _talk_ends(config: MonologueConfig, sd: StreamFactory, *, input_device: int | str | None = None,
               output_device: int | str | None = None, barge_in: bool = False, out_dir: Path | None = None,
               input_rate: int | None = None, output_rate: int | None = None,
               on_listening: Callable[[], None] | None = None) -> tuple[MicrophoneSource, SpeakerOutput]:
    """The microphone and speaker of a talk session. Half-duplex unless `barge_in`: the
    microphone hears zeros while the agent speaks, so the agent's own voice from the
    speaker is never taken for the user's."""
    speaker = SpeakerOutput(sd, device=output_device, sample_rate=output_rate,
                            record=out_dir / "reply.wav" if out_dir is not None else None)
    muted: Callable[[], bool] = (lambda: False) if barge_in else (lambda: speaker.speaking)
    mic = MicrophoneSource(sd, device=input_device, target_rate=config.audio.sample_rate,
                           chunk_ms=config.audio.chunk_ms, muted=muted, watch=speaker.health,
                           on_listening=on_listening, sample_rate=input_rate,
                           record=out_dir / "heard.wav" if out_dir is not None else None)
    return mic, speaker


def build_talk_worker(config: MonologueConfig, models: AgentModels, out_dir: Path, sd: StreamFactory, *,
                      input_device: int | str | None = None, output_device: int | str | None = None,
                      memory: WorkingMemory | None = None, barge_in: bool = False,
                      long_term: LongTermMemory | None = None) -> tuple[Any, AgentProcessors]:
    """The talk pipeline as a worker, without a session around it: for a caller that runs and
    stops the worker itself (tests); `run_talk` runs the same pipeline through `run_session`."""
    mic, speaker = _talk_ends(config, sd, input_device=input_device, output_device=output_device,
                              barge_in=barge_in)
    parts = build_processors(config, models, out_dir, memory=memory, long_term=long_term)
    return make_worker(session_pipeline(parts, mic, speaker)), parts


async def _in_daemon_thread(work: Callable[[], T]) -> T:
    """`work()` on a daemon thread: unlike `asyncio.to_thread`, a Ctrl-C while it runs (loading
    models) does not have to wait for it, and the process can exit at once."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if done.done():
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(result)

    def run() -> None:
        try:
            result, error = work(), None
        except BaseException as exc:
            result, error = None, exc
        try:
            loop.call_soon_threadsafe(settle, result, error)
        except RuntimeError:   # the loop is gone: nobody waits any more
            pass

    threading.Thread(target=run, name="talk-load", daemon=True).start()
    return await done


class _CtrlC:
    """Ctrl-C during `talk`: the first asks for a clean stop, a second quits at once."""

    def __init__(self, stop: asyncio.Event) -> None:
        self.stop = stop
        self._loop: asyncio.AbstractEventLoop | None = None

    def __enter__(self) -> _CtrlC:
        try:
            self._loop = asyncio.get_running_loop()
            self._loop.add_signal_handler(signal.SIGINT, self._pressed)
        except (NotImplementedError, RuntimeError, ValueError):   # not the main thread, or no signals here
            self._loop = None
        return self

    def _pressed(self) -> None:
        if self.stop.is_set():
            os.write(2, b"\nmonologue: stopped at once\n")
            os._exit(130)
        self.stop.set()

    def __exit__(self, *_exc: object) -> None:
        if self._loop is not None:
            self._loop.remove_signal_handler(signal.SIGINT)


async def run_talk(config: MonologueConfig, out_dir: Path, *, input_device: str | int | None = None,
                   output_device: str | int | None = None, sd: StreamFactory | None = None,
                   session_id: str | None = None, store: StateStore | None = None,
                   who: tuple[str | None, str] = (None, ""), store_path: str | None = None,
                   at: float | None = None,
                   situation: dict[str, str] | None = None, barge_in: bool = False,
                   console: TalkConsole | None = None, stop: asyncio.Event | None = None,
                   models: AgentModels | None = None) -> int:
    """One spoken session through the microphone and speaker; the exit status.

    0: the user stopped it (Ctrl-C, or `stop` set); 1: a device failed during the session;
    130: stopped while the models were loading. DeviceError before anything was loaded when
    PortAudio or a device cannot be used. `barge_in`: the microphone stays open while the
    agent speaks (use headphones: there is no echo cancelling).
    """
    show = console or TalkConsole()
    sd = sd or _sounddevice()
    mic_choice = choose_device(sd, input_device, "input")
    speaker_choice = choose_device(sd, output_device, "output")
    stop = stop or asyncio.Event()
    show.devices(mic_choice.name, mic_choice.sample_rate, speaker_choice.name, speaker_choice.sample_rate,
                 barge_in=barge_in)
    with _CtrlC(stop):
        if models is None:
            show.note("loading models…")
            loading = asyncio.ensure_future(_in_daemon_thread(lambda: load_models(config)))
            stopped = asyncio.ensure_future(stop.wait())
            await asyncio.wait({loading, stopped}, return_when=asyncio.FIRST_COMPLETED)
            stopped.cancel()
            if not loading.done():
                loading.cancel()
                show.note("stopped while loading models")
                return 130
            models = loading.result()
        long_term = await asyncio.to_thread(user_memory, config, models, who[0], store_path, at, who[1])
        if long_term is not None:
            long_term.situation = dict(situation or {})
        mic, speaker = _talk_ends(config, sd, input_device=mic_choice.device, output_device=speaker_choice.device,
                                  barge_in=barge_in, out_dir=out_dir, input_rate=mic_choice.sample_rate,
                                  output_rate=speaker_choice.sample_rate, on_listening=show.listening)
        # Both streams run before the session starts, so a device that refuses fails here, in words.
        try:
            speaker.open()
            mic.open()
        except DeviceError:
            speaker.close()
            await mic.cleanup()
            raise
        watch_stop = asyncio.ensure_future(_forward_stop(stop, mic))
        spec = SessionSpec(config, models, out_dir, session_id=session_id, store=store, long_term=long_term)

        def show_start(session: Session) -> None:
            show.session(session.session_id if session.memory is not None else "", session.opening)

        def show_end(session: Session) -> None:
            show.summary(len([t for t in session.turns if t.text]), session.wall_secs, out_dir)

        try:
            await run_session(spec, mic, speaker, hooks=SessionHooks(on_start=show_start, on_turn=show.turn,
                                                                     on_end=show_end))
        finally:
            watch_stop.cancel()
            await mic.cleanup()      # the microphone first, so nothing new is heard while the speaker closes
            await speaker.cleanup()
    failure = mic.failure or speaker.failure
    if failure:
        show.error(failure)
        return 1
    return 0


async def _forward_stop(stop: asyncio.Event, mic: MicrophoneSource) -> None:
    await stop.wait()
    mic.request_stop()


def _not_opened(what: str, device: int | str | None, rate: int, exc: Exception, option: str) -> DeviceError:
    """A device that refused to open, in one line with the fix."""
    return DeviceError(f"the {what} ({device if device is not None else 'default'}) could not be opened at "
                       f"{rate} Hz ({exc}); pick another with {option} (see `monologue talk --list-devices`)")
