"""Simulated users: goal-driven users that talk to an agent in words real people wrote.

A plain library, like `memory/`: no frames, no audio, no pipecat, and nothing of the
agent's own. The simulator reads the domain YAML for what a user can want (keys, types,
labels, enum values, actions) and nothing else of the agent: not its readers, cue lists,
phrase tables or policy. What it knows of the agent comes from the agent's words, read by
its own small reader (`reading.py`). So a phrase the agent understands only because the
same people wrote both sides cannot pass here.

    goals.py     a task with values: volunteered, given when asked, changed, withdrawn
    phrasing.py  user turns from SGD and CrossWOZ (delexicalised, refilled) and template families
    reading.py   what the agent's reply asks, reads back, offers or says was done
    user.py      the agenda-based user that reacts to each reply
    score.py     what a conversation got right and wrong, judged against the goal
    reference.py a competent toy agent (with faults to switch on) that calibrates the scores
"""
