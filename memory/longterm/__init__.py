"""Long-term memory: a user's memory stream, profile, reflections and plans (seeds 001, 002)."""
