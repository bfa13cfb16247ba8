"""Files that hold what a user said (a session's trace, transcript, audio and report) are
this user's only: 0600 files in 0700 folders, whatever the umask. On a shared machine a
0644 trace would let anyone read the words that the store keeps sealed."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal, TextIO

FILE_MODE = 0o600
FOLDER_MODE = 0o700


def private_folder(path: Path) -> Path:
    """Make `path` (and missing parents, with the usual mode); the folder itself is made
    0700 when this call creates it. A folder the user already had keeps its mode."""
    if not path.is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            path.mkdir(mode=FOLDER_MODE)
        except FileExistsError:
            pass                                  # another writer of the session made it first
    return path


def private_file(path: Path) -> Path:
    """Create `path` empty if it is missing, and make it 0600 either way, so that whatever
    writes it next (soundfile, a rename over it) writes into a private file."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE)
    os.close(fd)
    os.chmod(path, FILE_MODE)
    return path


def open_private(path: Path, mode: Literal["w", "a"] = "w") -> TextIO:
    """`open(path, mode)` for text ("w" or "a"), the file 0600."""
    private_file(path)
    return open(path, mode, encoding="utf-8")     # the caller closes it
