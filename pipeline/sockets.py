"""The listening socket of a server (`monologue serve`, `monologue llm-server`).

Bound before anything slow loads, so a taken port is a one-line error at once, not uvicorn's
exit after the models loaded. Its own module because the LLM server imports no pipecat.
"""

from __future__ import annotations

import socket


def bind(host: str, port: int) -> socket.socket:
    """A listening, non-blocking socket on host:port; `ConfigError` naming the fix if it cannot be."""
    from monologue.configs import ConfigError

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port} ({exc.strerror}); pick another with --port "
                          "or --host") from None
    sock.listen(128)
    sock.setblocking(False)
    return sock
