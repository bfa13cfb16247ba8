"""Several people on one device (U5): each person's memories apart, and a household's.

A household is a memory of its own, under the id `household:<name>`, in the same stores:
what a member states as shared ("we always avoid tolls", "our home address is …", 我们家都
不吃辣; `SHARED` in memory_cues.py) is written there, and every member's recall reads it
beside their own. Nothing else a member says reaches it. When nobody is known to be
speaking, recall reads the household's memories only — never anyone's personal ones — and
only what is stated as shared is kept.
"""

from __future__ import annotations

HOUSEHOLD_PREFIX = "household:"


def household_id(name: str) -> str:
    """The memory id of a household (`smith` → `household:smith`)."""
    return name if name.startswith(HOUSEHOLD_PREFIX) else HOUSEHOLD_PREFIX + name


def is_household(user_id: str) -> bool:
    return user_id.startswith(HOUSEHOLD_PREFIX)
