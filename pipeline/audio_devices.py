"""Which microphone and speaker `monologue talk` opens: PortAudio loaded, its devices listed,
and a device the user names checked before any model is loaded.

sounddevice is imported only here and only when asked for (`load_sounddevice`), so that a
machine without PortAudio can still replay, chat and serve; the error then says what to install.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from loguru import logger

DeviceKind = Literal["input", "output"]

NO_DEVICES = ("no audio devices found: PortAudio sees no sound card and no sound server. "
              "Start PulseAudio or PipeWire (or plug in a device) and run `monologue talk --list-devices` "
              "again; without a sound card, a PulseAudio null sink works (see the README)")


class DeviceError(RuntimeError):
    """PortAudio or an audio device cannot be used; the message says which and what to do."""


class StreamFactory(Protocol):
    """What the talk path needs from sounddevice; tests pass a fake."""

    def InputStream(self, **kwargs: Any) -> Any: ...
    def OutputStream(self, **kwargs: Any) -> Any: ...
    def query_devices(self, device: Any = None, kind: str | None = None) -> Any: ...


def load_sounddevice() -> Any:
    """The sounddevice module; DeviceError naming the fix when it or PortAudio is missing."""
    try:
        import sounddevice
    except OSError as exc:   # the Python package is there, the PortAudio library is not
        raise DeviceError(f"the microphone needs the PortAudio library ({exc}): install it with "
                          "`apt-get install libportaudio2` (macOS: `brew install portaudio`)") from None
    except ImportError as exc:
        raise DeviceError(f"the microphone needs the sounddevice package ({exc}): "
                          "`pip install sounddevice==0.5.6`") from None
    _quiet_alsa()
    return sounddevice


_alsa_handler: Any = None


def _quiet_alsa() -> None:
    """ALSA prints xrun notices ("underrun occurred") to stderr from C, between a person's
    lines; send them to the debug log (`monologue -v`) instead."""
    global _alsa_handler
    if _alsa_handler is not None or not sys.platform.startswith("linux"):
        return
    name = ctypes.util.find_library("asound")
    try:
        asound = ctypes.CDLL(name or "libasound.so.2")
    except OSError:
        return
    # The C handler is variadic; its fixed arguments are all a log line needs.
    handler_type = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
                                    ctypes.c_char_p)

    def to_debug_log(file: bytes, line: int, function: bytes, err: int, fmt: bytes) -> None:
        logger.debug(f"ALSA {function.decode(errors='replace')}: {fmt.decode(errors='replace')} ({err})")

    _alsa_handler = handler_type(to_debug_log)
    asound.snd_lib_error_set_handler(_alsa_handler)


def _all_devices(sd: StreamFactory) -> list[dict[str, Any]]:
    """Every device PortAudio lists, as dicts with their index; [] where the fake lists none."""
    listed = sd.query_devices()
    if isinstance(listed, str):
        return []
    return [dict(info, index=info.get("index", i)) for i, info in enumerate(listed)]


def list_devices(sd: StreamFactory | None = None) -> str:
    """PortAudio's device table (`>` default input, `<` default output); DeviceError when empty."""
    sd = sd or load_sounddevice()
    text = str(sd.query_devices()).rstrip()
    if not text:
        raise DeviceError(NO_DEVICES)
    return text


def _device_arg(value: str | int | None) -> int | str | None:
    if value is None or value == "":
        return None
    if isinstance(value, int):
        return value
    return int(value) if value.strip().isdigit() else value


@dataclass(frozen=True)
class DeviceChoice:
    """A device the session will open: its PortAudio index (or None for the default) and rate."""

    kind: DeviceKind
    device: int | str | None
    name: str
    sample_rate: int


def choose_device(sd: StreamFactory, value: str | int | None, kind: DeviceKind) -> DeviceChoice:
    """Check that `value` (index, part of a name, or None for the default) is a usable `kind`
    device, before any model is loaded; DeviceError says which devices there are."""
    device = _device_arg(value)
    flag = "--input" if kind == "input" else "--output"
    try:
        info = sd.query_devices(device, kind)
    except Exception as exc:
        raise DeviceError(_no_such_device(sd, value, kind, flag, str(exc))) from None
    if int(info.get(f"max_{kind}_channels", 1)) <= 0:
        raise DeviceError(_no_such_device(sd, value, kind, flag, f"{info.get('name')!r} has no {kind} channels"))
    rate = int(info["default_samplerate"])
    check = getattr(sd, f"check_{kind}_settings", None)
    if check is not None:
        try:
            check(device=device, samplerate=rate, channels=1, dtype="int16")
        except Exception as exc:
            raise DeviceError(f"{kind} device {info.get('name')!r} cannot record/play 16-bit mono at {rate} Hz "
                              f"({exc}); pick another with {flag} (see `monologue talk --list-devices`)") from None
    # An index pins the device; a name is kept as given so that PortAudio resolves it the same way.
    return DeviceChoice(kind, device, str(info.get("name", device)), rate)


def _no_such_device(sd: StreamFactory, value: str | int | None, kind: DeviceKind, flag: str, why: str) -> str:
    try:
        devices = [d for d in _all_devices(sd) if int(d.get(f"max_{kind}_channels", 0)) > 0]
    except Exception:
        devices = []
    if value is None:
        what = f"no default {kind} device ({why})"
    else:
        what = f"no {kind} device {str(value)!r} ({why})"
    if not devices:
        return f"cannot use {flag} {value}: {NO_DEVICES}" if value is not None else NO_DEVICES
    choices = ", ".join(f"{d['index']} {d['name']!r}" for d in devices)
    return f"{what}; the {kind} devices are: {choices}. Pass {flag} with an index or part of a name"


def not_opened(what: str, device: int | str | None, rate: int, exc: Exception, option: str) -> DeviceError:
    """A device that refused to open, in one line with the fix."""
    return DeviceError(f"the {what} ({device if device is not None else 'default'}) could not be opened at "
                       f"{rate} Hz ({exc}); pick another with {option} (see `monologue talk --list-devices`)")
