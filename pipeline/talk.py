"""`monologue talk`: talk to the agent through a microphone and speaker with sounddevice (P3).

    check PortAudio and both devices → load models → open and start both streams
    → "Listening" once the microphone delivers audio → session → close mic, then speaker

The devices are chosen in `audio_devices.py`, the two streams are `mic_transport.py`'s
processors, and what the person at the desk sees is `talk_console.py`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from monologue.configs import MonologueConfig
from monologue.memory.stores.protocols import StateStore
from monologue.pipeline.audio_devices import DeviceError, StreamFactory, choose_device, load_sounddevice
from monologue.pipeline.builder import (
    AgentModels,
    AgentProcessors,
    SessionMemories,
    build_processors,
    load_models,
    make_worker,
    user_memory,
)
from monologue.pipeline.mic_transport import MicrophoneOptions, MicrophoneSource, SpeakerOutput
from monologue.pipeline.session import Session, SessionHooks, SessionSpec, run_session, session_pipeline
from monologue.pipeline.talk_console import TalkConsole

T = TypeVar("T")

# A spoken session's recordings in its out folder, as `talk` and a server's rooms write them:
# the agent's voice as played, and what the microphone heard, each on the session's clock.
REPLY_WAV = "reply.wav"
HEARD_WAV = "heard.wav"


@dataclass(frozen=True)
class TalkDevices:
    """The microphone and speaker of a talk session, and whether the user may talk over the agent.

    A device is a PortAudio index, part of a name, or None for the default; a rate of None is
    the device's own default.
    """

    input_device: int | str | None = None
    output_device: int | str | None = None
    barge_in: bool = False      # the microphone stays open while the agent speaks (use headphones)
    input_rate: int | None = None
    output_rate: int | None = None


@dataclass(frozen=True)
class TalkOptions:
    """How one talk session runs: its devices, and whose session and memory it is."""

    devices: TalkDevices = field(default_factory=TalkDevices)
    session_id: str | None = None               # None: a new session; an id continues its stored state
    store: StateStore | None = None             # working memory's store; None keeps the state in this process
    who: tuple[str | None, str] = (None, "")    # (user, household) whose long-term memory is read and kept
    store_path: str | None = None               # None: store.path from the config
    at: float | None = None                     # the session's time for long-term memory; None: now
    situation: dict[str, str] | None = None     # what long-term memory knows of where and when the user is


@dataclass
class TalkEnvironment:
    """What `run_talk` otherwise makes for itself: the sound library (tests pass a fake), the
    console it shows the session on, the event that stops it (Ctrl-C sets it) and the models."""

    sd: StreamFactory | None = None
    console: TalkConsole | None = None
    stop: asyncio.Event | None = None
    models: AgentModels | None = None


def _talk_ends(config: MonologueConfig, sd: StreamFactory, devices: TalkDevices, *, out_dir: Path | None = None,
               on_listening: Callable[[], None] | None = None) -> tuple[MicrophoneSource, SpeakerOutput]:
    """The microphone and speaker of a talk session. Half-duplex unless `devices.barge_in`: the
    microphone hears zeros while the agent speaks, so the agent's own voice from the
    speaker is never taken for the user's."""
    speaker = SpeakerOutput(sd, device=devices.output_device, sample_rate=devices.output_rate,
                            record=out_dir / REPLY_WAV if out_dir is not None else None)
    muted: Callable[[], bool] = (lambda: False) if devices.barge_in else (lambda: speaker.speaking)
    microphone = MicrophoneOptions(device=devices.input_device, sample_rate=devices.input_rate,
                                   target_rate=config.audio.sample_rate, chunk_ms=config.audio.chunk_ms,
                                   record=out_dir / HEARD_WAV if out_dir is not None else None)
    mic = MicrophoneSource(sd, microphone, muted=muted, watch=speaker.health, on_listening=on_listening)
    return mic, speaker


def build_talk_worker(spec: SessionSpec, sd: StreamFactory,
                      devices: TalkDevices | None = None) -> tuple[Any, AgentProcessors]:
    """The talk pipeline as a worker, without a session around it: for a caller that runs and
    stops the worker itself (tests); `run_talk` runs the same pipeline through `run_session`.
    Of `spec` it takes the config, models, out_dir and the memories."""
    mic, speaker = _talk_ends(spec.config, sd, devices or TalkDevices())
    parts = build_processors(spec.config, spec.models, spec.out_dir,
                             memories=SessionMemories(spec.memory, spec.long_term))
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


async def run_talk(config: MonologueConfig, out_dir: Path, options: TalkOptions | None = None,
                   environment: TalkEnvironment | None = None) -> int:
    """One spoken session through the microphone and speaker; the exit status.

    0: the user stopped it (Ctrl-C, or `environment.stop` set); 1: a device failed during the
    session; 130: stopped while the models were loading. DeviceError before anything was
    loaded when PortAudio or a device cannot be used. `options.devices.barge_in`: the
    microphone stays open while the agent speaks (use headphones: there is no echo cancelling).
    """
    options = options or TalkOptions()
    environment = environment or TalkEnvironment()
    show = environment.console or TalkConsole()
    sd = environment.sd or load_sounddevice()
    mic_choice = choose_device(sd, options.devices.input_device, "input")
    speaker_choice = choose_device(sd, options.devices.output_device, "output")
    stop = environment.stop or asyncio.Event()
    barge_in = options.devices.barge_in
    show.devices(mic_choice.name, mic_choice.sample_rate, speaker_choice.name, speaker_choice.sample_rate,
                 barge_in=barge_in)
    models = environment.models
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
        user, household = options.who
        long_term = await asyncio.to_thread(user_memory, config, models, user, options.store_path, options.at,
                                            household)
        if long_term is not None:
            long_term.situation = dict(options.situation or {})
        chosen = dataclasses.replace(options.devices, input_device=mic_choice.device,
                                     output_device=speaker_choice.device, input_rate=mic_choice.sample_rate,
                                     output_rate=speaker_choice.sample_rate)
        mic, speaker = _talk_ends(config, sd, chosen, out_dir=out_dir, on_listening=show.listening)
        # Both streams run before the session starts, so a device that refuses fails here, in words.
        try:
            speaker.open()
            mic.open()
        except DeviceError:
            speaker.close()
            await mic.cleanup()
            raise
        watch_stop = asyncio.ensure_future(_forward_stop(stop, mic))
        spec = SessionSpec(config, models, out_dir, session_id=options.session_id, store=options.store,
                           long_term=long_term)

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
