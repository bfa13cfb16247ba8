"""`monologue serve --workers N`: N worker processes on ports PORT … PORT+N-1, kept running.

Each worker is a whole `monologue serve` (its own models, rooms and caches) and keeps no
state of its own beyond caches: sessions live in the shared stores (`store.url`,
`state.url`), so a load balancer may send any session to any worker, and a client whose
worker died continues its session id on another. One port per worker, not one shared
port, because a WebRTC room's later requests (trickle ICE, `PATCH /api/offer`) must reach
the worker that holds its peer connection; a balancer pins those by port.

The supervisor only starts, watches and stops: a worker that exits on its own is started
again (after a pause that grows if it keeps failing); SIGTERM or Ctrl-C is passed to every
worker, which drains its sessions (`RoomServer.close`), and the supervisor waits for them.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from loguru import logger

RESTART_PAUSE_SECS = 1.0        # before starting a worker that exited again…
RESTART_PAUSE_MAX_SECS = 30.0   # …doubling while it keeps exiting within STEADY_SECS
STEADY_SECS = 60.0              # a worker that ran this long failed afresh: the pause starts over
GIVE_UP_AFTER = 5               # exits in a row, each before STEADY_SECS: a fault restarts will not cure
STOP_WAIT_SECS = 45.0
PR_SET_PDEATHSIG = 1            # prctl(2)           # after SIGTERM: a worker's drain (END_GRACE_SECS twice, and some)


def worker_args(argv: Sequence[str], port: int) -> list[str]:
    """The `serve` command line for one worker: `--workers` dropped, `--port` set to its own."""
    out: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in ("--workers", "--port"):
            skip = True
            continue
        if arg.startswith(("--workers=", "--port=")):
            continue
        out.append(arg)
    return [*out, "--port", str(port), "--workers", "1"]     # a worker never starts workers of its own


def _stop_with_supervisor() -> None:
    """In the worker, before it runs: SIGTERM (a drain) when the supervisor dies, however it
    dies (even SIGKILL), so no worker is left serving without one watching it (Linux)."""
    import ctypes

    try:
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (AttributeError, OSError):      # not Linux: the supervisor's own stop() is all there is
        pass


@dataclass
class Worker:
    port: int
    args: list[str]
    process: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    pause: float = RESTART_PAUSE_SECS
    due: float = 0.0                     # when a stopped worker may be started again
    exits: int = 0                       # how often it exited (and was started again)
    failing: int = 0                     # exits in a row, each soon after it started

    def start(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "monologue.pipeline.cli", *self.args],
                                        preexec_fn=_stop_with_supervisor)
        self.started = time.monotonic()
        logger.info(f"worker :{self.port}: started (pid {self.process.pid})")


class Supervisor:
    """Starts the workers, restarts one that exits, and stops them all on SIGTERM/Ctrl-C."""

    def __init__(self, serve_argv: Sequence[str], port: int, count: int, *, verbose: bool = False,
                 restart_pause: float = RESTART_PAUSE_SECS) -> None:
        """`serve_argv`: the `serve` command's own arguments, as given to the supervisor."""
        first = ["--verbose"] if verbose else []
        self.workers = [Worker(port + i, [*first, "serve", *worker_args(serve_argv, port + i)], pause=restart_pause)
                        for i in range(count)]
        self.restart_pause = restart_pause
        self.stopping = False
        self.gave_up = ""                # why the supervisor stopped on its own ('' if it did not)

    def _stop(self, signum: int, _frame: object) -> None:
        if not self.stopping:
            logger.info(f"supervisor: {signal.Signals(signum).name}: draining {len(self.workers)} worker(s)")
        self.stopping = True

    def run(self, poll_secs: float = 0.5) -> int:
        """Start the workers and watch them until SIGTERM/Ctrl-C (0) or a worker keeps failing (1)."""
        before = {sig: signal.signal(sig, self._stop) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            for worker in self.workers:
                worker.start()
            while not self.stopping:
                time.sleep(poll_secs)
                for worker in self.workers:
                    self._watch(worker)
            code = self.stop()
        finally:
            for sig, handler in before.items():
                signal.signal(sig, handler)
        if self.gave_up:
            logger.error(f"supervisor: {self.gave_up}")
            return 1
        return code

    def _watch(self, worker: Worker) -> None:
        now = time.monotonic()
        if worker.process is None:
            if now >= worker.due and not self.stopping:
                worker.start()
            return
        code = worker.process.poll()
        if code is None:
            return
        worker.exits += 1
        worker.process = None
        ran = now - worker.started
        worker.failing = 0 if ran >= STEADY_SECS else worker.failing + 1
        worker.pause = self.restart_pause if ran >= STEADY_SECS else min(worker.pause * 2, RESTART_PAUSE_MAX_SECS)
        worker.due = now + worker.pause
        how = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exited with status {code}"
        if worker.failing >= GIVE_UP_AFTER:
            self.gave_up = (f"worker :{worker.port} {how} {worker.failing} times in a row, each within "
                            f"{STEADY_SECS:.0f} s of starting: starting it again will not help; its log above says "
                            "why (a port taken, a store out of reach, a missing model package)")
            self.stopping = True
            return
        logger.warning(f"worker :{worker.port}: {how} after {ran:.0f} s; starting it again in {worker.pause:.0f} s "
                       "(its sessions continue on any worker that is asked for them)")

    def stop(self) -> int:
        """SIGTERM to every worker (each drains its sessions), then wait; SIGKILL what is left."""
        running = [w.process for w in self.workers if w.process is not None and w.process.poll() is None]
        for process in running:
            process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_WAIT_SECS
        for process in running:
            try:
                process.wait(timeout=max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                logger.warning(f"supervisor: worker pid {process.pid} did not stop within {STOP_WAIT_SECS:.0f} s; "
                               "killing it")
                process.kill()
                process.wait()
        logger.info("supervisor: every worker stopped")
        return 0
