"""The domain's words respelled where the ASR wrote them by sound: what it finds, what it breaks.

    python scripts/bench_respelled.py                # false alarms on real users' Chinese turns
    python scripts/bench_respelled.py --spoken       # …and commands spoken by the Mandarin voice, heard by the ASR

- False alarms: CrossWOZ's validation user turns (typed by real people, so any respelling is
  wrong), run through each bundled domain's respeller (`memory/working/heard.py`): every turn
  it would change is counted, and printed.
- Found (`--spoken`): in-car commands in everyday Mandarin (`COMMANDS`, written for this
  benchmark), spoken by the session's Mandarin voice and heard by the session's Chinese ASR;
  counted: the commands whose values the rules read from the transcript as heard, without and
  with the respelling, against what they read from the words as written.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CROSSWOZ_VAL = ROOT.parent / "shared" / "data" / "crosswoz" / "val.json.zip"
DOMAINS = ("in_car", "restaurant", "customer_service")
COMMANDS = (
    "打开座椅加热", "座椅加热关掉吧", "有点闷，开点窗", "把车窗关上", "切换到内循环", "空调风小一点", "空调别开那么猛",
    "声音太吵了，小一点", "音量大一点", "放首歌吧", "这首不好听，换一首", "暂停音乐", "座椅往后一点",
    "温度调到二十二度", "导航去机场，不走高速", "路上在加油站停一下", "座椅再往前一点", "帮我把座椅加热打开",
    "窗户开一点", "换一首歌吧", "外循环", "风速大一点", "座椅调低一点", "开到二十四度",
)


def crosswoz_user_turns() -> list[str]:
    archive = zipfile.ZipFile(CROSSWOZ_VAL)
    dialogues = json.loads(archive.read(archive.namelist()[0]))
    return [m["content"] for d in dialogues.values() for m in d["messages"] if m["role"] == "usr"]


def respellers() -> dict[str, object]:
    from monologue.memory.domain.schema import load_schema
    from monologue.memory.working.extract import RuleExtractor
    from monologue.memory.working.heard import respeller_for

    return {name: respeller_for(load_schema(name), RuleExtractor(load_schema(name)).values_read) for name in DOMAINS}


def false_alarms() -> None:
    turns = crosswoz_user_turns()
    print(f"CrossWOZ val user turns: {len(turns)}")
    for name, respell in respellers().items():
        changed = [(t, r) for t in turns if (r := respell(t)) is not None]   # type: ignore[operator]
        print(f"| {name} | respelled {len(changed)} |")
        for text, respelled in changed[:20]:
            print(f"   {text}  →  {respelled}")


def spoken(commands: tuple[str, ...] = COMMANDS) -> None:
    import numpy as np
    import soxr

    from monologue.configs import load_config
    from monologue.memory.domain.schema import load_schema
    from monologue.memory.working.extract import RuleExtractor
    from monologue.models.asr import WhisperASR
    from monologue.pipeline.builder import session_voices

    config = load_config(overrides={"language": "zh"}, environ={})
    voices = session_voices(config)
    asr = WhisperASR("zh", config.asr.model, beam_size=config.asr.beam_size, compute_type=config.asr.compute_type,
                     cpu_threads=1, initial_prompt_zh=config.asr.initial_prompt_zh, window_secs=config.asr.window_secs)
    rules = RuleExtractor(load_schema("in_car"))
    respell = respellers()["in_car"]
    silence = np.zeros(4800, dtype=np.int16)

    def values(text: str) -> list[tuple[str, object]]:
        return sorted((op.key, op.value) for op in rules.extract(text).operations if op.op == "set")

    as_heard = respelled_right = 0
    for command in commands:
        _, chunks = voices.speak(command)
        audio = np.concatenate([np.frombuffer(chunk, dtype=np.int16) for chunk, _ in chunks])
        samples = np.asarray(soxr.resample(audio, voices.sample_rate, 16000), dtype=np.int16)
        heard = asr.transcribe(np.concatenate([silence, samples, silence]).astype(np.float32) / 32768.0).text
        fixed = respell(heard) or heard                                        # type: ignore[operator]
        wanted = values(command)
        as_heard += values(heard) == wanted
        respelled_right += values(fixed) == wanted
        mark = "ok " if values(fixed) == wanted else "-- "
        print(f"{mark}{command}  heard {heard}" + (f"  respelled {fixed}" if fixed != heard else ""))
    print(f"\n| spoken in-car commands ({len(commands)}) | read right as heard | with the respelling |")
    print(f"|---|---:|---:|\n| Mandarin voice → whisper base | {as_heard} | {respelled_right} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spoken", action="store_true", help="also speak the commands and hear them (about 1 min)")
    parser.add_argument("--commands", help="a file of other commands to speak, one a line (lines with no "
                        "Chinese, and '---', are skipped)")
    args = parser.parse_args()
    if not CROSSWOZ_VAL.is_file():
        print(f"needs {CROSSWOZ_VAL} (the shared data folder beside the project)", file=sys.stderr)
        return 2
    false_alarms()
    if args.spoken:
        spoken()
    if args.commands:
        lines = Path(args.commands).read_text(encoding="utf-8").splitlines()
        spoken(tuple(line.strip() for line in lines if re.search(r"[\u4e00-\u9fff]", line)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
