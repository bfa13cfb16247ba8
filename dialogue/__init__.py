"""The dialogue policy: what the agent does next, how it is said, and the check a reply passes.

A plain library like `memory/` (no frames, no audio, no pipecat): `policy.py` decides the
act from the state and the domain, `wording.py` says it (the template, and the note that
asks a model to word it), `check.py` checks the model's words clause by clause, `tools.py`
carries out actions, `chooser.py` lets a provider with function calling choose the action.
"""
