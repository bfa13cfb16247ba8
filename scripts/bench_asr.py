"""ASR encoder window: word error rate and time per call, whisper's full 30 s window beside
shorter ones, in one run.

    python scripts/bench_asr.py [--windows 30,15,10,8,6] [--sets clean,noise,phone,demo,requests,long]
                                [--model tiny|base] [--speech-dir DIR] [--json OUT]

Sets (each utterance is transcribed once per window, the windows one after another on the
same utterance, so background load falls on all of them alike):
  clean     real recordings: 5 LibriVox sentences and 5 spoken card names (--speech-dir,
            default ../shared/data/speech/en-real; the set is skipped if it is missing)
  noise     the same with pink noise at 15 dB SNR
  phone     the same as telephone audio: 8 kHz, G.711 mu-law, back to 16 kHz
  demo      the user turns of assets/demo_session/demo.flac, cut at its silences
  requests  spoken requests (restaurant, car, customer service; numbers, times, names)
            voiced by piper, fast and slow
  long      several requests said in one breath (12-25 s): turns longer than the window
--model base times the multilingual base model (the zh model; no Chinese speech is bundled,
so it decodes the English sets as English).
WER = (substitutions + deletions + insertions) / reference words, after `normalise`.
The recommended window is the fastest (median) whose overall WER is no worse than the full
window's; each window is also compared with the full one utterance by utterance.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from monologue.models.offline import enforce_offline

enforce_offline()

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "assets" / "demo_session" / "demo.flac"
SPEECH_DIR = ROOT.parent / "shared" / "data" / "speech" / "en-real"
RATE = 16000
NOISE_SNR_DB = 15.0
SPEEDS = (0.85, 1.0, 1.2)   # piper length_scale: brisk, ordinary and slow speakers

REQUESTS = (
    # restaurant
    "Hi, I'd like to book a table for two at half past seven tonight.",
    "Could we move the reservation to Friday at eight fifteen instead?",
    "My name is Priya Patel, that's P A T E L.",
    "Is there anything on the menu without nuts? My son is allergic.",
    "We'll be six people, and one of us uses a wheelchair.",
    "Can I get the chicken curry, not too spicy, and two glasses of water?",
    "What time do you close on Sundays?",
    "Actually, make that three people, not four.",
    "The total for the twelve of us comes to three hundred and twenty pounds.",
    # car
    "Navigate to the nearest gas station, please.",
    "How long until we get to Mr. Johnson's house?",
    "Turn the temperature up to twenty two degrees.",
    "Call my wife and tell her I'll be twenty minutes late.",
    "Find a parking garage near the airport that's open all night.",
    "Skip this song and play something by Fleetwood Mac.",
    "Add a stop at the pharmacy on Elm Street before we go home.",
    "Remind me to call Doctor Nguyen tomorrow at nine a.m.",
    # customer service
    "I was charged twice for my order last Tuesday.",
    "My order number is four eight one five nine two.",
    "I'd like a refund of forty nine dollars and ninety nine cents.",
    "Can you send the replacement to my office address instead?",
    "The package arrived damaged and the screen is cracked.",
    "Please cancel my subscription at the end of this month.",
    "I've been on hold for forty five minutes, can I speak to a manager?",
    "My appointment is on the third of March at ten thirty in the morning.",
    # short answers
    "Yes, that's correct.",
    "No, thanks.",
    "Okay.",
)
LONG_GROUPS = ((0, 2, 4, 5), (9, 10, 11, 12, 13), (17, 18, 19, 20, 21, 22), (21, 22, 23, 24),
               (1, 3, 6, 8, 14, 15), (13, 14, 15, 16, 26))

# --- text normalisation -----------------------------------------------------------------------

_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
          "fifteen sixteen seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
_ORDINALS = {"one": "first", "two": "second", "three": "third", "five": "fifth", "eight": "eighth",
             "nine": "ninth", "twelve": "twelfth"}
_ABBREVIATIONS = {"mr": "mister", "mrs": "missus", "dr": "doctor", "st": "street", "ok": "okay"}


def number_words(n: int) -> str:
    """12 → 'twelve', 320 → 'three hundred twenty' (no 'and': it is dropped on both sides)."""
    if n < 20:
        return _UNITS[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else " " + _UNITS[n % 10])
    if n < 1000:
        return _UNITS[n // 100] + " hundred" + ("" if n % 100 == 0 else " " + number_words(n % 100))
    if n < 1_000_000:
        return number_words(n // 1000) + " thousand" + ("" if n % 1000 == 0 else " " + number_words(n % 1000))
    return " ".join(_UNITS[int(d)] for d in str(n))


def ordinal_words(n: int) -> str:
    words = number_words(n).split()
    last = words[-1]
    words[-1] = _ORDINALS.get(last) or (last[:-1] + "ieth" if last.endswith("y") else last + "th")
    return " ".join(words)


def _spell_digits(match: re.Match[str]) -> str:
    return " ".join(_UNITS[int(d)] for d in re.sub(r"\D", "", match.group(0)))


def normalise(text: str) -> list[str]:
    """Words to compare: lower case, no punctuation, numbers as words, abbreviations spelt out.

    Either way of writing the same speech compares equal: '$49.99' and 'forty-nine dollars and
    ninety-nine cents', '10:30', 'at 1030' and 'ten thirty', '3rd' and 'third', 'Mr.' and 'mister',
    '9am' and 'nine a.m.', '481592' and 'four eight one five nine two'.
    """
    t = text.lower().replace("’", "'")
    t = re.sub(r"\b([ap])\.\s?m\b\.?", r"\1m", t)                 # a.m. → am
    t = re.sub(r"(\d)([ap]m)\b", r"\1 \2", t)                       # 9am → 9 am
    t = re.sub(r"\$(\d+)\.(\d\d)\b", r"\1 dollars and \2 cents", t)
    t = re.sub(r"£(\d+)\.(\d\d)\b", r"\1 pounds and \2 pence", t)
    t = re.sub(r"\$(\d+)", r"\1 dollars", t)
    t = re.sub(r"£(\d+)", r"\1 pounds", t)
    t = t.replace("%", " percent").replace("&", " and ")
    t = re.sub(r"\b(\d{1,2})[:.]00\b", r"\1 o'clock", t)
    t = re.sub(r"\b(\d{1,2})[:.](\d\d)\b", lambda m: f"{m.group(1)} {_clock_minutes(int(m.group(2)))}", t)
    t = re.sub(r"\bat (1[0-2]|[1-9])([0-5]\d)\b",                  # 'at 815': whisper's eight fifteen
               lambda m: f"at {m.group(1)} {_clock_minutes(int(m.group(2)))}", t)
    t = re.sub(r"\b\d+(?:-\d+)+\b|\b\d{5,}\b", _spell_digits, t)   # phone and order numbers
    t = re.sub(r"(\d),(\d{3})\b", r"\1\2", t)
    t = re.sub(r"\b(\d+)(st|nd|rd|th)\b", lambda m: ordinal_words(int(m.group(1))), t)
    t = re.sub(r"\d+", lambda m: " " + number_words(int(m.group(0))) + " ", t)
    words = re.sub(r"[^a-z0-9' ]+", " ", t.replace("-", " ")).split()
    words = [_ABBREVIATIONS.get(w.strip("'"), w.strip("'")) for w in words if w.strip("'")]
    return [w for i, w in enumerate(words) if not (w == "and" and i > 0 and words[i - 1] == "hundred")]


def _clock_minutes(minutes: int) -> str:
    return ("oh " + _UNITS[minutes]) if minutes < 10 else number_words(minutes)


def join_compounds(words: list[str], other: list[str]) -> list[str]:
    """Two words written as one in `other` become one: 'cold hearted' and 'coldhearted' (or
    'cold-hearted') spell the same speech."""
    joined = set(other)
    out: list[str] = []
    for word in words:
        if out and out[-1] + word in joined and out[-1] not in joined:
            out[-1] += word
        else:
            out.append(word)
    return out


def word_errors(ref: list[str], hyp: list[str]) -> int:
    """Substitutions, deletions and insertions from `ref` to `hyp`, compounds spelt either way."""
    return edit_distance(join_compounds(ref, hyp), join_compounds(hyp, ref))


def edit_distance(ref: list[str], hyp: list[str]) -> int:
    row = list(range(len(hyp) + 1))
    for i, word in enumerate(ref, start=1):
        diagonal, row[0] = row[0], i
        for j, heard in enumerate(hyp, start=1):
            diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diagonal + (word != heard))
    return row[-1]


# --- test sets -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Utterance:
    name: str
    audio: np.ndarray   # float32 mono 16 kHz
    text: str


def _read(path: Path) -> np.ndarray:
    import soundfile as sf

    from monologue.pipeline.audio_io import to_mono_int16

    data, rate = sf.read(str(path), dtype="float32")
    return to_mono_int16(data, rate, RATE).astype(np.float32) / 32768.0


def real_clips(folder: Path) -> list[Utterance]:
    """The clips listed in sphinx-style transcription files: `<s> words </s> (file id)`."""
    clips = []
    for listing in (folder / "transcription", folder / "cards" / "cards.transcription"):
        for line in listing.read_text().splitlines():
            found = re.match(r"<s>(.*)</s>\s*\((.*)\)", line.strip())
            if found:
                wav = listing.parent / f"{found.group(2)}.wav"
                clips.append(Utterance(wav.stem, _read(wav), found.group(1).strip()))
    return clips


def pink_noise(size: int, rng: np.random.Generator) -> np.ndarray:
    """Noise with power falling as 1/f: white noise shaped in the frequency domain."""
    spectrum = np.fft.rfft(rng.standard_normal(size))
    spectrum /= np.sqrt(np.maximum(np.arange(spectrum.size), 1))
    noise = np.fft.irfft(spectrum, n=size)
    return (noise / np.sqrt(np.mean(noise ** 2))).astype(np.float32)


def with_noise(clip: Utterance, snr_db: float, rng: np.random.Generator) -> Utterance:
    speech_power = float(np.mean(clip.audio ** 2))
    noise = pink_noise(clip.audio.size, rng) * np.sqrt(speech_power / 10 ** (snr_db / 10))
    return Utterance(clip.name, np.clip(clip.audio + noise, -1, 1), clip.text)


def as_telephone(clip: Utterance) -> Utterance:
    """8 kHz narrowband through G.711 mu-law (8 bits a sample), resampled back to 16 kHz."""
    import soxr

    narrow = np.clip(soxr.resample(clip.audio, RATE, 8000, quality="HQ"), -1, 1)
    mu = 255.0
    coded = np.round(np.sign(narrow) * np.log1p(mu * np.abs(narrow)) / np.log1p(mu) * 127) / 127
    decoded = np.sign(coded) * np.expm1(np.abs(coded) * np.log1p(mu)) / mu
    return Utterance(clip.name, soxr.resample(decoded.astype(np.float32), 8000, RATE, quality="HQ"), clip.text)


def demo_turns() -> list[Utterance]:
    """The demo's user turns: stretches of sound separated by more than 1.5 s of silence
    (the agent's pauses are 6-12 s; piper's pauses inside a turn are under 1 s)."""
    audio = _read(DEMO)
    frame = RATE // 50
    loud = np.abs(audio[: audio.size // frame * frame].reshape(-1, frame)).max(axis=1) > 0.01
    spans: list[list[int]] = []
    for index in np.flatnonzero(loud).tolist():
        if spans and index - spans[-1][1] <= 75:   # 75 frames = 1.5 s
            spans[-1][1] = index
        else:
            spans.append([index, index])
    lines = DEMO.with_suffix(".txt").read_text().splitlines()
    if len(spans) != len(lines):
        raise SystemExit(f"{DEMO} cut into {len(spans)} turns but {DEMO.with_suffix('.txt')} has {len(lines)}")
    margin = 10   # 0.2 s of silence either side, as the VAD's pre-roll and stop leave
    return [Utterance(f"demo{n}", audio[max(0, (a - margin) * frame):(b + 1 + margin) * frame], text)
            for n, ((a, b), text) in enumerate(zip(spans, lines, strict=True), start=1)]


def piper_utterances(texts: list[tuple[str, str]], length_scale: float) -> list[Utterance]:
    from monologue.models.tts import PiperTTS
    from monologue.pipeline.audio_io import to_mono_int16

    tts = PiperTTS(length_scale=length_scale)
    lead = np.zeros(RATE // 5, dtype=np.float32)
    out = []
    for name, text in texts:
        speech = tts.synthesize_all(text).astype(np.float32) / 32768.0 * 0.8
        audio = to_mono_int16(speech, tts.sample_rate, RATE).astype(np.float32) / 32768.0
        out.append(Utterance(name, np.concatenate([lead, audio, lead]), text))
    return out


def build_sets(names: list[str], speech_dir: Path) -> dict[str, list[Utterance]]:
    sets: dict[str, list[Utterance]] = {}
    real_wanted = {"clean", "noise", "phone"} & set(names)
    real = real_clips(speech_dir) if real_wanted and speech_dir.is_dir() else []
    if real_wanted and not real:
        print(f"no recordings in {speech_dir}: skipping {', '.join(sorted(real_wanted))}", file=sys.stderr)
    rng = np.random.default_rng(15)
    for name in names:
        if name in real_wanted and real:
            sets[name] = {"clean": lambda: real,
                          "noise": lambda: [with_noise(c, NOISE_SNR_DB, rng) for c in real],
                          "phone": lambda: [as_telephone(c) for c in real]}[name]()
        elif name == "demo":
            sets[name] = demo_turns()
        elif name == "requests":
            texts = [(f"req{n}", t) for n, t in enumerate(REQUESTS, start=1)]
            sets[name] = [u for speed in SPEEDS for u in piper_utterances(
                [(f"{key}@{speed}", t) for key, t in texts], speed)]
        elif name == "long":
            sets[name] = piper_utterances(
                [(f"long{n}", " ".join(REQUESTS[i] for i in group)) for n, group in enumerate(LONG_GROUPS, 1)], 1.0)
    return sets


# --- measuring ---------------------------------------------------------------------------------

@dataclass
class Tally:
    errors: int = 0
    words: int = 0
    millis: list[float] = field(default_factory=list)
    retries: int = 0

    def add(self, errors: int, words: int, millis: float, retried: bool) -> None:
        self.errors += errors
        self.words += words
        self.millis.append(millis)
        self.retries += retried

    @property
    def wer(self) -> float:
        return self.errors / max(self.words, 1)

    def p90(self) -> float:
        if len(self.millis) < 2:
            return self.millis[0] if self.millis else float("nan")
        return statistics.quantiles(self.millis, n=10, method="inclusive")[8]

    def row(self) -> str:
        return (f"{self.wer:6.3f} ({self.errors:3d}/{self.words:4d}) {statistics.median(self.millis):4.0f} "
                f"{self.p90():4.0f} {statistics.fmean(self.millis):4.0f} {self.retries:2d}")


@dataclass(frozen=True)
class Heard:
    """One utterance transcribed with one window."""

    set_name: str
    utterance: str
    window: float
    secs: float
    text: str
    errors: int
    words: int
    millis: float
    full_window_retry: bool


def measure(asr: Any, sets: dict[str, list[Utterance]], windows: list[float], show: bool) -> list[Heard]:
    """Every utterance with every window in turn (so background load falls on all alike)."""
    heard: list[Heard] = []
    for set_name, utterances in sets.items():
        for utterance in utterances:
            ref = normalise(utterance.text)
            this_one: list[Heard] = []
            for window in windows:
                asr.window_secs = window
                started = time.perf_counter()
                result = asr.transcribe(utterance.audio)
                millis = (time.perf_counter() - started) * 1000
                this_one.append(Heard(set_name, utterance.name, window, round(utterance.audio.size / RATE, 2),
                                      result.text, word_errors(ref, normalise(result.text)), len(ref),
                                      round(millis, 1), result.full_window_retry))
            if show and len({h.errors for h in this_one}) > 1:
                print(f"[{set_name}/{utterance.name}] ref: {utterance.text}")
                for h in this_one:
                    print(f"    {h.window:4g} s  {h.errors} err  {h.text}")
            heard += this_one
    return heard


def report(heard: list[Heard], set_names: list[str], windows: list[float]) -> float:
    """Print the table and the comparison with the full window; return the recommended window."""
    tallies = {(name, w): Tally() for name in [*set_names, "overall"] for w in windows}
    for h in heard:
        for name in (h.set_name, "overall"):
            tallies[(name, h.window)].add(h.errors, h.words, h.millis, h.full_window_retry)
    print("\nPer window: WER (errors/words), median, p90 and mean ms a call, calls retried with the full window")
    print(f"{'set':9s} {'n':>3s}" + "".join(f"{f'window {w:g} s':>36s}" for w in windows))
    for name in [*set_names, "overall"]:
        count = len(tallies[(name, windows[0])].millis)
        print(f"{name:9s} {count:3d}" + "".join(f"{tallies[(name, w)].row():>36s}" for w in windows))

    full = max(windows)
    errors_at = {(h.set_name, h.utterance, h.window): h.errors for h in heard}
    utterances = sorted({(h.set_name, h.utterance) for h in heard})
    for window in windows:
        if window != full:
            better = sum(errors_at[(*key, window)] < errors_at[(*key, full)] for key in utterances)
            worse = sum(errors_at[(*key, window)] > errors_at[(*key, full)] for key in utterances)
            print(f"window {window:g} s against {full:g} s: fewer errors on {better} utterances, more on {worse}")
    allowed = [w for w in windows if tallies[("overall", w)].errors <= tallies[("overall", full)].errors]
    best = min(allowed, key=lambda w: statistics.median(tallies[("overall", w)].millis))
    print(f"fastest window (median) whose overall WER is no worse than {full:g} s: {best:g} s")
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--windows", default="30,15,10,8,6", help="encoder windows in seconds; 30 is whisper's own")
    parser.add_argument("--sets", default="clean,noise,phone,demo,requests,long")
    parser.add_argument("--model", choices=("tiny", "base"), default="tiny",
                        help="tiny: tiny.en (English); base: the multilingual base model used for zh")
    parser.add_argument("--speech-dir", type=Path, default=SPEECH_DIR)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--show", action="store_true", help="print every transcript that differs between windows")
    parser.add_argument("--json", type=Path, help="also write per-utterance results here")
    args = parser.parse_args()

    from monologue.models.asr import WhisperASR, base_multilingual_path

    windows = [float(w) for w in args.windows.split(",")]
    sets = build_sets(args.sets.split(","), args.speech_dir)
    model = "auto" if args.model == "tiny" else str(base_multilingual_path())
    asr = WhisperASR("en", model, cpu_threads=args.threads)
    for window in windows:   # the first call of each shape pays for lazy initialisation
        asr.window_secs = window
        asr.transcribe(next(iter(sets.values()))[0].audio)
    print(f"model: {asr.path} ({args.threads} threads)")
    heard = measure(asr, sets, windows, args.show)
    report(heard, list(sets), windows)
    if args.json:
        args.json.write_text(json.dumps([asdict(h) for h in heard], indent=1))


if __name__ == "__main__":
    main()
