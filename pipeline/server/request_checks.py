"""Who a request is from, and what is wrong with one that does not validate."""

from __future__ import annotations

import re

from pydantic import ValidationError

from monologue.pipeline.front_door import RequestError


def validation_problems(exc: ValidationError) -> str:
    """A request's validation errors, one clause each: where, and what is wrong."""
    return "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors())


def user_id(name: str) -> str:
    """The page's name as a user id: trimmed, inner spaces collapsed; '' keeps nothing."""
    return re.sub(r"\s+", " ", name).strip()


def caller_name(named: str, caller: str | None) -> str:
    """Who a request is from: the verified `caller` (a server with credentials), or the name
    the request gives (a server without). A request whose name is not its credential's is
    refused rather than quietly answered as someone."""
    if caller is None:
        return user_id(named)
    if named and user_id(named) != caller:
        raise RequestError(403, f"the request names user {user_id(named)!r}, but its credential is {caller!r}'s; "
                                "leave `user` out (the credential says who you are)")
    return caller
