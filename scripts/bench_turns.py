"""When does a turn end? False cut-ins and turn-end waits, the old rule against ends by meaning (E3).

    python scripts/bench_turns.py [--json OUT]

Runs the VAD stage alone (silero, smart-turn, the streaming transcript with the configured
whisper) over utterances that each are ONE turn, and counts:

- false cut-ins: the turn was closed while the user was mid-utterance (speech followed
  within the same utterance) — the agent would have started talking over them;
- drafts kept / started: replies begun at a pause before the turn's end, and how many of them
  the turn's end confirmed; the rest the user talked on through (nothing said or written);
- the turn-end wait: the silence after the utterance's last word before its turn closed.

Sets: real speech (../shared/data/speech/en-real: LibriVox sentences read with natural
pauses, and spoken card names) and hesitations written here, voiced by piper with pauses
of 0.3–1.0 s inside the sentence ("I'd like a table for" … "four people"), in several
domains. Rules: `silence` (every turn ends after a fixed vad.stop_secs, the rule before
old rule) and `meaning` (the configured turn section). Both see the same audio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from monologue.configs import MonologueConfig, load_config
from monologue.models.offline import enforce_offline

enforce_offline()

REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "speech" / "en-real"
RATE = 16000

# Each line: the parts of one utterance, with the pause (seconds) after each part but the last.
HESITATIONS: tuple[tuple[tuple[str, float], ...], ...] = (
    (("I'd like to book a table for", 0.6), ("four people on Saturday.", 0)),
    (("Could you book us somewhere", 0.5), ("a bit quieter, away from the kitchen?", 0)),
    (("Um, I think", 0.7), ("seven thirty would be better.", 0)),
    (("Take me to", 0.8), ("the airport, terminal two.", 0)),
    (("Set the temperature to", 0.5), ("twenty one degrees.", 0)),
    (("I want to return the", 0.9), ("blue jacket I ordered last week.", 0)),
    (("My order number is", 0.6), ("four five seven, two nine one.", 0)),
    (("And also", 0.7), ("no peanuts, my son is allergic.", 0)),
    (("Can we make it", 0.4), ("Friday instead?", 0)),
    (("Add a stop at a coffee place,", 0.5), ("and then go home.", 0)),
    (("Hmm, let me think.", 1.0), ("Yes, Luigi's sounds good.", 0)),
    (("The table should be for", 0.35), ("six, not four.", 0)),
    (("I need to change the delivery address to", 0.8), ("twelve Baker Street.", 0)),
    (("Book it for eight o'clock", 0.3), ("if they have a table by the window.", 0)),
    (("Could you turn on the", 0.6), ("seat heating, please?", 0)),
    (("We are two adults and", 0.5), ("two children.", 0)),
)


@dataclass
class Utterance:
    name: str
    samples: np.ndarray                 # 16 kHz int16
    speech_end_secs: float              # where its last word ends, from its start


def _trim(samples: np.ndarray, threshold: int = 300) -> np.ndarray:
    loud = np.nonzero(np.abs(samples) > threshold)[0]
    return samples[loud[0]: loud[-1] + 1] if loud.size else samples


def real_utterances() -> list[Utterance]:
    import soundfile

    out = []
    for wav in sorted(REAL.glob("*.wav")) + sorted((REAL / "cards").glob("*.wav")):
        samples, rate = soundfile.read(wav, dtype="int16")
        if rate != RATE:
            raise SystemExit(f"{wav}: expected 16 kHz, got {rate}")
        speech = _trim(samples)
        out.append(Utterance(f"real/{wav.stem}", speech, speech.size / RATE))
    return out


def hesitation_utterances() -> list[Utterance]:
    from monologue.models.tts import PiperTTS
    from monologue.pipeline.audio_io import to_mono_int16

    tts = PiperTTS(length_scale=1.05)
    out = []
    for index, parts in enumerate(HESITATIONS):
        pieces = []
        for text, pause in parts:
            voice = to_mono_int16(tts.synthesize_all(text).astype(np.float32) / 32768.0 * 0.8, tts.sample_rate, RATE)
            pieces += [_trim(voice), np.zeros(int(pause * RATE), np.int16)]
        samples = np.concatenate(pieces)
        out.append(Utterance(f"hesitation/{index + 1:02d} " + " … ".join(t for t, _ in parts),
                             samples, _trim(samples).size / RATE))
    return out


@dataclass
class Outcome:
    cut_ins: int = 0
    drafts: int = 0                     # drafts started: a reply begun at a pause, before the turn's end
    dropped_drafts: int = 0
    end_wait_secs: float | None = None
    closed: bool = True
    asr_ready_ms: float | None = None   # the turn's transcript ready, after the end of speech


async def run_rule(config: MonologueConfig, models: Any, utterance: Utterance) -> Outcome:
    from pipecat.frames.frames import InputAudioRawFrame
    from pipecat.tests.utils import run_test

    from monologue.pipeline.builder import build_processors
    from monologue.processors.frames import SpeechSegmentFrame

    vad = build_processors(config, models, None).vad
    lead = np.zeros(int(0.5 * RATE), np.int16)
    tail = np.zeros(int(2.5 * RATE), np.int16)
    samples = np.concatenate([lead, utterance.samples, tail])
    chunk = RATE // 50
    frames = [InputAudioRawFrame(audio=samples[i: i + chunk].tobytes(), sample_rate=RATE, num_channels=1)
              for i in range(0, samples.size, chunk)]
    down, _ = await run_test(vad, frames_to_send=frames)
    segments = [f for f in down if isinstance(f, SpeechSegmentFrame)]
    closed = [s.turn for s in segments if not s.turn.dropped]
    speech_end = lead.size / RATE + utterance.speech_end_secs
    outcome = Outcome(drafts=sum(1 for s in segments if s.turn.drafted_at is not None),
                      dropped_drafts=sum(1 for s in segments if s.turn.dropped))
    # A turn closed before the utterance's last word (with a little slack for the VAD's
    # view of where speech ends) was closed on a user still speaking.
    outcome.cut_ins = sum(1 for t in closed if t.end_pts < speech_end - 0.25)
    last = [t for t in closed if t.end_pts >= speech_end - 0.25]
    if last:
        outcome.end_wait_secs = last[-1].end_wait_secs
        ready, speech_ended = last[-1].turn_end.transcript_ready_at, last[-1].turn_end.speech_end_at
        if ready is not None and speech_ended is not None:
            outcome.asr_ready_ms = (ready - speech_ended) * 1000
    else:
        outcome.closed = False
    return outcome


def compare(base: MonologueConfig, models: Any, json_out: str | None = None) -> None:
    """The old rule and ends by meaning over the same utterances; prints the table."""
    rules = {"silence (fixed 0.5 s)": base.with_overrides({"turn": {"end_by": "silence"}}),
             "meaning": base.with_overrides({"turn": {"end_by": "meaning"}})}
    sets = {"real speech": real_utterances(), "hesitations (piper)": hesitation_utterances()}
    results: dict[str, dict[str, list[Outcome]]] = {rule: {name: [] for name in sets} for rule in rules}
    rows = []
    for set_name, utterances in sets.items():
        for utterance in utterances:
            for rule, config in rules.items():       # side by side, same audio
                outcome = asyncio.run(run_rule(config, models, utterance))
                results[rule][set_name].append(outcome)
                rows.append({"set": set_name, "utterance": utterance.name, "rule": rule, **outcome.__dict__})
            print(f"{utterance.name}: " + "; ".join(
                f"{rule.split()[0]} cut-ins {results[rule][set_name][-1].cut_ins}" for rule in rules),
                file=sys.stderr, flush=True)

    print(f"\n## When turns end — {sum(len(u) for u in sets.values())} utterances, each one turn\n")
    print("| set | rule | false cut-ins | utterances cut | drafts kept / started | turn-end wait median (ms) | p90 "
          "| transcript ready after speech, median (ms) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for set_name in sets:
        for rule in rules:
            outcomes = results[rule][set_name]
            waits = sorted(o.end_wait_secs * 1000 for o in outcomes if o.end_wait_secs is not None)
            p90 = waits[min(int(round(0.9 * (len(waits) - 1))), len(waits) - 1)] if waits else float("nan")
            ready = [o.asr_ready_ms for o in outcomes if o.asr_ready_ms is not None]
            print(f"| {set_name} | {rule} | {sum(o.cut_ins for o in outcomes)} | "
                  f"{sum(1 for o in outcomes if o.cut_ins)}/{len(outcomes)} | "
                  f"{sum(o.drafts - o.dropped_drafts for o in outcomes)} / {sum(o.drafts for o in outcomes)} | "
                  f"{statistics.median(waits) if waits else float('nan'):.0f} | {p90:.0f} | "
                  f"{statistics.median(ready) if ready else float('nan'):.0f} |")
    if json_out:
        Path(json_out).write_text(json.dumps(rows, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", help="write every utterance's outcome here")
    args = parser.parse_args()
    from loguru import logger

    logger.remove()
    logger.add(sys.stderr, level="WARNING")
    from monologue.pipeline.builder import load_models

    base = load_config()
    compare(base, load_models(base), args.json)


if __name__ == "__main__":
    main()
