"""Working memory: a session's state, changed only by explicit operations (seed 000)."""
