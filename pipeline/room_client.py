"""A Python peer for a `monologue serve` room (aiortc): what a browser does, without one.

Sends 16 kHz speech as its microphone (in real time, or faster for long silences),
listens to the agent's voice, and keeps the panel messages. The tests and
scripts/bench_rooms.py use it; it also pokes a running server from a shell:

    python -m monologue.pipeline.room_client http://127.0.0.1:7860 turn.wav --user Kim
"""

from __future__ import annotations

import argparse
import asyncio
import fractions
import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from aiortc import MediaStreamTrack, RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamError
from av import AudioFrame

FRAME_SECS = 0.02
VOICED_RMS = 300.0     # int16 RMS over which a received 20 ms frame counts as the agent's voice


class PcmTrack(MediaStreamTrack):
    """A microphone that plays `samples` (int16 mono at `rate`) then, if `then_silence`,
    silence until stopped. `speed` > 1 sends faster than real time (long silences in tests)."""

    kind = "audio"

    def __init__(self, samples: np.ndarray, rate: int = 16000, *, speed: float = 1.0,
                 then_silence: bool = True, silence_secs: float | None = None) -> None:
        super().__init__()
        self._samples = np.asarray(samples, dtype=np.int16)
        self._rate = rate
        self._speed = speed
        self._then_silence = then_silence
        self._limit = None if silence_secs is None else self._samples.size + int(silence_secs * rate)
        self._step = int(rate * FRAME_SECS)
        self._sent = 0
        self._start: float | None = None
        self.script_done = asyncio.Event()     # every sample of the script was sent
        self.feed: list[np.ndarray] = []       # more speech to send next (bench: the next turn)

    @property
    def sent_secs(self) -> float:
        return self._sent / self._rate

    async def recv(self) -> AudioFrame:
        if self.readyState != "live":
            raise MediaStreamError
        if self._start is None:
            self._start = time.monotonic()
        wait = self._start + self._sent / self._rate / self._speed - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        if self._sent >= self._samples.size and self.feed:
            # After the silence sent since the script ran out, so none of the next speech is skipped.
            gap = np.zeros(self._sent - self._samples.size, dtype=np.int16)
            self._samples = np.concatenate([self._samples, gap, self.feed.pop(0)])
        if self._sent < self._samples.size:
            chunk = self._samples[self._sent: self._sent + self._step]
            if chunk.size < self._step:
                chunk = np.concatenate([chunk, np.zeros(self._step - chunk.size, dtype=np.int16)])
        else:
            self.script_done.set()
            if not self._then_silence or (self._limit is not None and self._sent >= self._limit):
                self.stop()
                raise MediaStreamError
            chunk = np.zeros(self._step, dtype=np.int16)
        frame = AudioFrame.from_ndarray(chunk.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = self._rate
        frame.pts = self._sent
        frame.time_base = fractions.Fraction(1, self._rate)
        self._sent += self._step
        return frame


class RoomClient:
    """One peer in one room: connect, talk, listen, read the panel, leave."""

    def __init__(self, base_url: str, user: str, track: PcmTrack, *, no_history: bool = False,
                 patience_secs: float = 60.0) -> None:
        """`patience_secs`: how long `wait_for` waits for what it is told to expect."""
        self.base_url = base_url.rstrip("/")
        self.patience_secs = patience_secs
        self.user = user
        self.no_history = no_history
        self.track = track
        self.pc = RTCPeerConnection()
        self.messages: list[dict[str, Any]] = []
        self.received_frames = 0
        self.voiced_secs = 0.0
        self.pc_id = ""
        self._listener: asyncio.Task | None = None
        self._changed = asyncio.Event()

    async def connect(self) -> dict[str, Any]:
        import aiohttp

        channel = self.pc.createDataChannel("monologue")
        channel.on("message", self._on_message)
        self.pc.addTrack(self.track)
        self.pc.on("track", self._on_track)
        await self.pc.setLocalDescription(await self.pc.createOffer())
        body = {"sdp": self.pc.localDescription.sdp, "type": self.pc.localDescription.type, "user": self.user,
                "no_history": self.no_history}
        async with aiohttp.ClientSession() as http, http.post(f"{self.base_url}/api/offer", json=body) as response:
            answer = await response.json()
            if response.status != 200:
                raise RuntimeError(f"offer refused ({response.status}): {answer.get('error')}")
        self.pc_id = answer["pc_id"]
        await self.pc.setRemoteDescription(RTCSessionDescription(sdp=answer["sdp"], type=answer["type"]))
        return dict(answer)

    def _on_message(self, data: Any) -> None:
        try:
            message = json.loads(data)
        except (TypeError, ValueError):
            return
        if isinstance(message, dict) and "type" in message:
            self.messages.append(message)
            self._changed.set()

    def _on_track(self, track: Any) -> None:
        if track.kind == "audio":
            self._listener = asyncio.ensure_future(self._listen(track))

    async def _listen(self, track: Any) -> None:
        while True:
            try:
                frame = await track.recv()
            except MediaStreamError:
                return
            self.received_frames += 1
            samples = frame.to_ndarray().astype(np.float32)
            if samples.size and float(np.sqrt(np.mean(samples ** 2))) > VOICED_RMS:
                self.voiced_secs += frame.samples / frame.sample_rate
                self._changed.set()

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("type") == kind]

    async def wait_for(self, condition: Callable[[], bool]) -> bool:
        """Look at `condition` as messages and audio arrive; False when `patience_secs` passed first."""
        deadline = time.monotonic() + self.patience_secs
        while not condition():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), min(left, 0.5))
            except TimeoutError:
                pass
        return True

    async def close(self) -> None:
        self.track.stop()
        await self.pc.close()
        if self._listener is not None:
            self._listener.cancel()


async def _main(args: argparse.Namespace) -> None:
    from monologue.pipeline.audio_io import load_session

    audio = load_session(args.wav, sample_rate=16000)
    client = RoomClient(args.url, args.user, PcmTrack(audio.samples), patience_secs=args.timeout)
    await client.connect()
    await client.wait_for(lambda: bool(client.of_type("agent_reply")) and client.track.script_done.is_set())
    await asyncio.sleep(args.linger)
    for message in client.messages:
        print(json.dumps(message, ensure_ascii=False))
    print(f"# agent voice received: {client.voiced_secs:.1f} s", flush=True)
    await client.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url")
    parser.add_argument("wav")
    parser.add_argument("--user", default="")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--linger", type=float, default=3.0, help="seconds to keep listening after the reply")
    asyncio.run(_main(parser.parse_args()))
