"""`monologue users add|remove|list`: who may talk to a server (`memory/stores/access.py`).

    monologue users add ana --days 30     prints ana's new token, once
    monologue users remove ana            every token of ana's stops working, on every worker
    monologue users list                  who has tokens, and until when

The tokens live in the store every worker shares (`--store`, or `store.url`/`store.path`), so
a token made on one machine works on all of them, and a removal takes effect on the next
request anywhere. Removing a user's credentials keeps their memories (`monologue memory
erase` erases those).
"""

from __future__ import annotations

import argparse
import datetime as dt
from typing import Any


def _access(args: argparse.Namespace) -> Any:
    from monologue.configs import load_config
    from monologue.memory.stores.factory import open_stores

    config = load_config(args.config)
    return config, open_stores(args.store or config.store.url or config.store.path).access


def _when(at: float) -> str:
    return dt.datetime.fromtimestamp(at, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def cmd_users_add(args: argparse.Namespace) -> int:
    from monologue.configs import ConfigError
    from monologue.memory.stores.access import BadUserName

    config, access = _access(args)
    days = args.days if args.days is not None else config.server.token_days
    try:
        issued = access.issue(args.name, days, label=args.label or "")
    except (BadUserName, ValueError) as exc:
        raise ConfigError(str(exc)) from None
    print(issued.token)
    print(f"(a token for {issued.user}, valid until {_when(issued.expires)}; shown once, the store keeps only its "
          "digest. Send it as 'Authorization: Bearer <token>', or paste it on the room page.)", flush=True)
    return 0


def cmd_users_remove(args: argparse.Namespace) -> int:
    _config, access = _access(args)
    count = access.revoke(args.name)
    if not count:
        print(f"{args.name!r} has no tokens (nothing removed)")
        return 1
    print(f"removed {count} token(s) of {args.name!r}: they stop working at the next request, on every worker "
          "(their memories are kept; `monologue memory erase --user …` erases those)")
    return 0


def cmd_users_list(args: argparse.Namespace) -> int:
    _config, access = _access(args)
    users = access.users()
    if not users:
        print("no users have tokens: a server on 127.0.0.1 runs without credentials; elsewhere it refuses to start "
              "(add one with `monologue users add NAME`)")
        return 0
    for user in users:
        print(f"{user.user}  {user.tokens} token(s), the last valid until {_when(user.expires)}")
    return 0


def add_users_parser(sub: Any) -> None:
    users = sub.add_parser("users", help="who may talk to a server: per-user tokens (add, remove, list)")
    users_sub = users.add_subparsers(dest="users_command", required=True)
    add = users_sub.add_parser("add", help="a new token for NAME (printed once)")
    add.add_argument("name", help="the user id the token stands for (the name memories are kept under)")
    add.add_argument("--days", type=float, help="how long it is valid (default: server.token_days, 90)")
    add.add_argument("--label", help="what the token is for, e.g. 'ana's phone'")
    remove = users_sub.add_parser("remove", help="revoke every token of NAME")
    remove.add_argument("name")
    listing = users_sub.add_parser("list", help="who has tokens, and until when")
    for parser, func in ((add, cmd_users_add), (remove, cmd_users_remove), (listing, cmd_users_list)):
        parser.add_argument("--config")
        parser.add_argument("--store", help="the store the servers use (a path or URL; default: the configured one)")
        parser.set_defaults(func=func)
