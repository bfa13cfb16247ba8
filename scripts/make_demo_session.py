"""Make the bundled demo session: the user's side of a short booking conversation,
voiced by piper, with pauses where the agent would answer.

    python scripts/make_demo_session.py [--out assets/demo_session]

Writes demo.flac (16 kHz mono) and demo.txt (what is said, one turn a line).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from monologue.models.tts import PiperTTS
from monologue.pipeline.audio_io import to_mono_int16, write_wav

USER_TURNS = (
    "Hi, I'd like to book a table for four people on Saturday evening.",
    "Around seven o'clock would be great. And please, nothing spicy.",
    "By the way, the weather has been lovely this week.",
    "Actually, make it six people instead of four.",
    "Yes, that sounds good. Thank you!",
)
LEAD_SECS = 0.6
# Silence on the user's channel after each turn: the user waits for the agent to answer and
# finish (a few seconds to answer, then the reply: a question is short, an offer with its
# details takes 6–8 s to say). A user who speaks sooner cuts the agent off (barge-in).
AGENT_PAUSE_SECS = (6.0, 12.0, 8.0, 12.0, 9.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="assets/demo_session")
    args = parser.parse_args()
    out = Path(args.out)
    tts = PiperTTS(length_scale=1.05)
    rate = 16000
    pieces = [np.zeros(int(LEAD_SECS * rate), dtype=np.int16)]
    for text, pause in zip(USER_TURNS, AGENT_PAUSE_SECS, strict=True):
        speech = tts.synthesize_all(text).astype(np.float32) / 32768.0
        pieces.append(to_mono_int16(speech * 0.8, tts.sample_rate, rate))
        pieces.append(np.zeros(int(pause * rate), dtype=np.int16))
    audio = np.concatenate(pieces)
    out.mkdir(parents=True, exist_ok=True)
    write_wav(out / "demo.flac", audio, rate)
    (out / "demo.txt").write_text("\n".join(USER_TURNS) + "\n", encoding="utf-8")
    print(f"{out / 'demo.flac'}: {audio.size / rate:.1f} s, {len(USER_TURNS)} user turns")


if __name__ == "__main__":
    main()
