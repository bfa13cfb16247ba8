"""What the agent says in its own words, one table per language.

Every sentence memory or the state speaks (a clarifying question, a conflict, the
opening line…) is a template here, looked up by key: code never branches on the
language to build a sentence. A language is a table; a missing key falls back to
English. Placeholders are `str.format` fields, the same in every table (a test checks).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

Language = Literal["en", "zh"]
LANGUAGES: tuple[Language, ...] = ("en", "zh")

EN: dict[str, str] = {
    # --- working memory -------------------------------------------------------------
    "list.and": " and ",
    "list.sep": "; ",
    "list.comma": ", ",
    "clause.join": " ",
    "state.goal": "goal: {goal}",
    "state.open_question": "open question: {question}",
    "state.last_action": "last action: {action}",
    "state.empty": "(nothing yet)",
    "state.confirmed": "confirmed",
    "state.to_confirm": "to confirm",
    "monologue.wants": "User wants: {goal}.",
    "monologue.goal_unclear": "not clear yet",
    "monologue.settled": "Settled: {items}.",
    "monologue.to_confirm": "To confirm: {items}.",
    "monologue.open": "Open: {items}.",
    "monologue.this_turn": "This turn: {items}.",
    "monologue.nothing": "nothing",
    "monologue.no_change": "no change",
    "change.replaced": "{before} → {after} ({reason})",
    "change.withdrawn": "dropped {before}",
    "change.added": "added {after}",
    "change.maybe_changed": "{after} instead of {before}? asking first",
    "change.confirmed": "confirmed {after}",
    "change.expired": "{before} expired ({reason})",
    "change.to_confirm": "{slot} needs re-confirming ({reason})",
    "state.changed_question": "You said {old} for the {label} earlier, and now {new} — should I change it to {new}?",
    "clarify.question": "Sorry, I didn't catch that clearly — did you say {heard}?",
    "clarify.labelled": "{label} {value}",
    "reply.wants": "The user wants to {goal}",
    "reply.default_goal": "get help",
    "reply.conditions": ": {items}.",
    "reply.no_conditions": ".",
    "reply.check_still_holds": "Not mentioned for a while, check it still holds: {items}.",
    "reply.ask": "Ask the user: {question}",
    "reply.nothing_yet": "The user has not asked for anything specific yet.",
    "reply.fallback": "Sorry, I couldn't come up with an answer just now. Could you say that again?",
    "condition.date": "on {value}",
    "condition.time": "at {value}",
    "condition.excludes": "no {value}",
    "condition.includes": "with {value}",
    "condition.at_most": "{label} at most {value}",
    "condition.at_least": "{label} at least {value}",
    "condition.not": "not {value} ({label})",
    "condition.enum": "{value} {label}",
    "condition.other": "{label}: {value}",
    "options.fit": "Places that fit: {items}.",
    "options.none": "Places that fit: none; say so and ask which condition to relax.",
    # --- said aloud: a condition in a read-back or the opening line (render.spoken_condition)
    "spoken.join": ", ",
    "spoken.excludes": "no {value}",
    "spoken.at_most": "{label} under {value}",
    "spoken.at_least": "{label} at least {value}",
    "spoken.date": "on {value}",
    "spoken.time": "at {value}",
    "spoken.enum": "{value} {label}",
    # --- long-term memory -----------------------------------------------------------
    # A field written `{name:.0}` is taken and not said: the sentence never said it in
    # that language, and every table takes the same fields.
    "conflict.question": 'Earlier you told me "{old}", and now you said "{new}". Has that changed?',
    "conflict.updated": 'Thanks — I\'ve updated it: "{new}".',
    "conflict.kept": 'Thanks — I\'ll keep what you told me before: "{old}".',
    "checks.promise": 'Last time I said: "{promise}" — I haven\'t forgotten',
    "checks.expired": 'You mentioned "{memory}" — that date has passed; is it still relevant?',
    "checks.stale": "It's been a while — still true? {facts}",
    "plan.text": "{goal} again, checking every option against what you told me",
    "plan.reason": "you told me {conditions}",
    "plan.reason.and": " and ",
    "plan.spoken": "My suggestion: {plan}, because {reason}. Shall I go ahead?",
    "opening.first": "Hi! Before we start — any preferences I should know about, like {keys}?",
    "opening.first.or": " or ",
    "opening.hello": "Hi! How can I help?",
    "opening.back": "Welcome back! Last time: {where}{conditions}{status}{still_open}{follow_up}",
    "opening.last_conversation": "our last conversation",
    "opening.conditions": " ({conditions})",
    "opening.completed": ", all confirmed",
    "opening.still_open": ". Still open: {question}",
    "opening.preferences": ". I still have {preferences} — is that still right?",
    "opening.pick_up": ". Shall we pick up from there?",
    "session.a_conversation": "a conversation",
    "summary.open": "open: {items}",
    "summary.said": "the user said: {said}",
    "exact.no_change": "There is no record of the {label} being changed.",
    "exact.removed": "removed",
    "exact.changed": "The {label} was last changed on {when}: {after} ({reason}).",
    "exact.no_last_session": "There is no record of an earlier session.",
    "exact.nothing_specific": "nothing specific",
    "exact.last_time": "Last time ({when}): {goal} — {details}.",
    "travel.done": 'Done: the plan you mentioned on {day}, "{before}", is now "{after}".',
    "travel.now_at": " (now at {to})",
    "travel.moved_to": " (moved to {to})",
}

ZH: dict[str, str] = {
    # --- working memory -------------------------------------------------------------
    "list.and": "、",
    "list.sep": "；",
    "list.comma": ", ",
    "clause.join": "",
    "state.goal": "目标: {goal}",
    "state.open_question": "待问: {question}",
    "state.last_action": "上一步: {action}",
    "state.empty": "(还没有条件)",
    "state.confirmed": "已确认",
    "state.to_confirm": "待确认",
    "monologue.wants": "用户想要: {goal}。",
    "monologue.goal_unclear": "还不清楚",
    "monologue.settled": "已定: {items}。",
    "monologue.to_confirm": "待确认: {items}。",
    "monologue.open": "未决: {items}。",
    "monologue.this_turn": "本轮: {items}。",
    "monologue.nothing": "无",
    "monologue.no_change": "没有改动",
    "change.replaced": "{before} → {after}（{reason}）",
    "change.withdrawn": "去掉了 {before}",
    "change.added": "加上 {after}",
    "change.maybe_changed": "{after} 代替 {before}？先问一下",
    "change.confirmed": "确认了 {after}",
    "change.expired": "{before} 已过期（{reason}）",
    "change.to_confirm": "{slot} 需要再确认（{reason}）",
    "state.changed_question": "你之前说{label}是{old}，现在是{new}，要改成{new}吗？",
    "clarify.question": "抱歉，我没听清，你是说{heard}吗？",
    "clarify.labelled": "{label} {value}",
    "reply.wants": "用户想{goal}",
    "reply.default_goal": "得到帮助",
    "reply.conditions": "：{items}。",
    "reply.no_conditions": "。",
    "reply.check_still_holds": "有一阵没提到了，确认一下是否还成立：{items}。",
    "reply.ask": "问用户：{question}",
    "reply.nothing_yet": "用户还没有提出具体要求。",
    "reply.fallback": "抱歉，我刚才没能想好回答，你能再说一遍吗？",
    "condition.date": "{value}",
    "condition.time": "{value}",
    "condition.excludes": "不要{value}",
    "condition.includes": "要{value}",
    "condition.at_most": "{label}不超过{value}",
    "condition.at_least": "{label}至少{value}",
    "condition.not": "{label}不是{value}",
    "condition.enum": "{label}：{value}",
    "condition.other": "{label}：{value}",
    "options.fit": "符合条件的地方：{items}。",
    "options.none": "符合条件的地方：没有；告诉用户，并问可以放宽哪个条件。",
    "spoken.join": "，",
    "spoken.excludes": "不要{value}",
    "spoken.at_most": "{label}{value}以内",
    "spoken.at_least": "{label}至少{value}",
    "spoken.date": "{value}",
    "spoken.time": "{value}",
    "spoken.enum": "{label}{value}",
    # --- long-term memory -----------------------------------------------------------
    "conflict.question": "你之前告诉过我“{old}”，现在你说“{new}”。情况变了吗？",
    "conflict.updated": "好的，我更新了：“{new}”。",
    "conflict.kept": "好的，我保留原来的：“{old}”。",
    "checks.promise": "上次我答应过：{promise}",
    "checks.expired": "“{memory}”这件事已经过期了，还需要吗？",
    "checks.stale": "这些偏好很久没确认了：{facts}",
    "plan.text": "再来{goal}，每个选项都按你说过的要求检查",
    "plan.reason": "你说过{conditions}",
    "plan.reason.and": "，也说过",
    "plan.spoken": "建议：{plan}——因为{reason}。可以吗？",
    "opening.first": "你好！第一次见面，先问一下：{keys}方面有什么偏好吗？",
    "opening.first.or": "、",
    "opening.hello": "你好！",
    # The Chinese greeting has never said how the last session ended or what stayed open.
    "opening.back": "欢迎回来！上次我们在{where}{conditions}{status:.0}{still_open:.0}{follow_up}",
    "opening.last_conversation": "our last conversation",     # untranslated, as it has always been said
    "opening.conditions": "（{conditions}）",
    "opening.completed": "，都已确认",
    "opening.still_open": "。还没定的：{question}",
    "opening.preferences": "。我记得你的偏好：{preferences}，还是这样吗？",
    "opening.pick_up": "。要接着来吗？",
    "session.a_conversation": "对话",
    "summary.open": "未决：{items}",
    "summary.said": "用户说：{said}",
    "exact.no_change": "没有{label}改动的记录。",
    "exact.removed": "已取消",
    "exact.changed": "{label}上次在 {when} 改为 {after}。{reason:.0}",
    "exact.no_last_session": "没有上次的记录。",
    "exact.nothing_specific": "无",
    "exact.last_time": "上次（{when}）：{goal}，{details}。",
    "travel.done": "好的，你{day}说的“{before}”已改为：“{after}”。",
    "travel.now_at": "（改到{to}）",
    "travel.moved_to": "（改到{to}）",
}

TABLES: dict[str, dict[str, str]] = {"en": EN, "zh": ZH}


def say(key: str, language: str, **values: object) -> str:
    """The sentence `key` in `language` (English when that language lacks it)."""
    table = TABLES.get(language, EN)
    template = table[key] if key in table else EN[key]
    return template.format(**values)


def join(items: Iterable[str], language: str, separator: str = "list.and") -> str:
    """Items joined the way the language lists them ("a and b", "甲、乙")."""
    return say(separator, language).join(items)
