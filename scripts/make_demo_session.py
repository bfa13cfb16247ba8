"""Make the bundled sessions: the user's side of a short booking conversation, voiced by
piper, with pauses where the agent would answer.

    python scripts/make_demo_session.py [--out assets/demo_session]
    python scripts/make_demo_session.py --barge-in [--out assets/barge_in_session]

Writes demo.flac (16 kHz mono) and demo.txt (what is said, one turn a line). The demo's
user waits for each answer; the barge-in session's user does not: they change the party
size while the agent is still offering a place, and say "okay" over its next offer
(barge_in.flac, barge_in.txt; `scripts/bench_rooms.py` replays it in every room).
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

# The agent answers a turn within 1–4 s, and an offer takes 6–8 s to say: 4 s after turn 2
# the user is talking over the offer; 4 s after turn 3 "okay" lands inside the next one, well
# before its last second (where a "yes" or "okay" would answer its question, not backchannel).
BARGE_IN_TURNS = (
    ("Hi, I'd like to book a table for four people on Saturday evening.", 6.0),
    ("Around seven o'clock would be great. And please, nothing spicy.", 4.0),
    ("Actually, make it six people instead of four.", 4.0),
    ("Okay.", 9.0),          # piper cannot say "mm-hm" (whisper hears "in the MHN"): a plain backchannel
    ("Yes, that sounds good. Book it, please.", 7.0),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=None, help="folder (default assets/demo_session or assets/barge_in_session)")
    parser.add_argument("--barge-in", action="store_true", help="the session whose user speaks over the agent")
    args = parser.parse_args()
    name = "barge_in" if args.barge_in else "demo"
    out = Path(args.out or f"assets/{name}_session")
    turns = BARGE_IN_TURNS if args.barge_in else tuple(zip(USER_TURNS, AGENT_PAUSE_SECS, strict=True))
    tts = PiperTTS(length_scale=1.05)
    rate = 16000
    pieces = [np.zeros(int(LEAD_SECS * rate), dtype=np.int16)]
    for text, pause in turns:
        speech = tts.synthesize_all(text).astype(np.float32) / 32768.0
        pieces.append(to_mono_int16(speech * 0.8, tts.sample_rate, rate))
        pieces.append(np.zeros(int(pause * rate), dtype=np.int16))
    audio = np.concatenate(pieces)
    out.mkdir(parents=True, exist_ok=True)
    write_wav(out / f"{name}.flac", audio, rate)
    (out / f"{name}.txt").write_text("\n".join(text for text, _ in turns) + "\n", encoding="utf-8")
    print(f"{out / f'{name}.flac'}: {audio.size / rate:.1f} s, {len(turns)} user turns")


if __name__ == "__main__":
    main()
