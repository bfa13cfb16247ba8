"""Simulated users against the agent, whole conversations: does the task get done?

    python scripts/bench_conversations.py                     # 3 domains × en/zh × 50, held-out partition
    python scripts/bench_conversations.py --n 5 --domain in_car --language zh
    python scripts/bench_conversations.py --agent reference:forget=3    # a deliberately broken agent

Goal-driven users (`monologue.sim`) speak in SGD's and CrossWOZ's user turns, refilled with
their goal's values, and the simulator's own template families for what those corpora lack;
they react to each reply. Each conversation runs through the text pipeline of `monologue chat`
(classifier, monologue and working memory, policy, reply stage and its check) with the embedded
defaults, in this process. Reported per domain × language, on the held-out partition (goals and
templates no tuning looks at): task success with the goal's final values, facts lost, re-asks,
repeated replies, loops, state questions answered, wrong writes, turns to success; then a few
conversations with the model's wording, and returning users over three sessions asked what the
agent remembers. The worst conversations are written as transcripts with their state diffs.

SGD: CC BY-SA 4.0 (Google Research). CrossWOZ: Apache-2.0 (thu-coai). Read from ../shared/data.
"""

from __future__ import annotations

import argparse
import sys

from monologue.models.offline import enforce_offline

enforce_offline()


def main() -> int:
    from loguru import logger

    from monologue.pipeline.simulate import simulate
    from monologue.pipeline.simulate_cli import add_arguments

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser, n=50, domains="restaurant,in_car,customer_service", languages="en,zh", returns=5,
                  model_subset=3)
    args = parser.parse_args()
    logger.remove()
    logger.add(sys.stderr, level="ERROR")
    return simulate(args)


if __name__ == "__main__":
    sys.exit(main())
