"""The `monologue` command line: the parser, and the commands that run a session.

replay, demo, talk and chat run the agent; the commands that look into what was kept
(state, memory, profile, sessions, models) live in `inspection.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from monologue.models.offline import enforce_offline
from monologue.pipeline import inspection
from monologue.pipeline.users_cli import add_users_parser

if TYPE_CHECKING:
    from monologue.configs import MonologueConfig
    from monologue.memory.stores.protocols import StateStore
    from monologue.pipeline.builder import AgentModels

enforce_offline()

DEMO_SESSION = Path(__file__).resolve().parent.parent / "assets" / "demo_session" / "demo.flac"


def _quiet_logs(verbose: bool) -> None:
    from loguru import logger

    logger.remove()
    logger.add(sys.stderr, level="DEBUG" if verbose else "WARNING", filter=_worth_showing)


def _worth_showing(record: Any) -> bool:
    """Rooms are audio only: pipecat's warning that a peer offered no video is not news."""
    return "transceiver is available" not in record["message"]


def _session_id_arg(value: str) -> str:
    """--session as a name, never a path (argparse reports the message as a usage error)."""
    from monologue.memory.stores.access import check_session_id

    try:
        return check_session_id(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _config(args: argparse.Namespace) -> MonologueConfig:
    from monologue.configs import load_config

    overrides: dict[str, Any] = {}
    if getattr(args, "vad", None):
        overrides.setdefault("vad", {})["engine"] = args.vad
    if getattr(args, "language", None) == "auto":
        # The ASR tells English from Mandarin per turn; the session's own words (its opening, a
        # turn with no words to tell by) stay in the configured language.
        overrides.setdefault("asr", {})["language"] = "auto"
    elif getattr(args, "language", None):
        overrides["language"] = args.language
    if getattr(args, "llm", None):
        overrides.setdefault("llm", {})["model"] = args.llm
    return load_config(args.config, overrides)


def _print_models_loaded(models: AgentModels) -> None:
    loads = ", ".join(f"{k} {v:.1f} s" for k, v in models.load_secs.items())
    print(f"models loaded ({loads})", flush=True)


def _store(args: argparse.Namespace, config: MonologueConfig) -> StateStore:
    from monologue.pipeline.builder import open_store

    return open_store(config, getattr(args, "store", None))


def cmd_replay(args: argparse.Namespace) -> int:
    from monologue.pipeline.audio_io import load_session
    from monologue.pipeline.builder import load_models
    from monologue.pipeline.replay import ReplayOptions, replay_audio

    config = _config(args)
    session = load_session(args.path, sample_rate=config.audio.sample_rate,
                           max_secs=config.replay.max_seconds)
    print(f"session: {len(session.sources)} file(s), {session.duration_secs:.1f} s of audio "
          f"(from {session.original_rate} Hz × {session.original_channels} ch)", flush=True)
    models = load_models(config)
    _print_models_loaded(models)
    out = Path(args.out)
    from monologue.pipeline.builder import user_memory

    user, household = _speaker(args, config)
    long_term = user_memory(config, models, user, args.store, at=_at(args), household=household)
    if long_term is not None:
        long_term.situation = _situation(args)
    options = ReplayOptions(paced=args.paced, handle_sigint=True, session_id=args.session,
                            store=_store(args, config), long_term=long_term)
    result = asyncio.run(replay_audio(session, config, models, out, options))
    if result.session_id:
        print(f"session {result.session_id} (state: monologue state show {result.session_id})")
    transcript = (out / "transcript.txt").read_text(encoding="utf-8") if (out / "transcript.txt").exists() else ""
    print("\n" + (transcript.strip() or "(no speech detected in the session)"))
    spoken = [t for t in result.turns if t.text]
    if result.interrupted:
        print(f"\nstopped after {result.wall_secs:.1f} s; {len(spoken)} turn(s) answered and traced")
        return 130
    print(f"\n{len(spoken)} user turn(s) answered in {result.wall_secs:.1f} s for "
          f"{result.audio_secs:.1f} s of audio (×{result.realtime_factor:.2f} real time); "
          f"monologue triggered on {result.triggered_share:.0%} of turns")
    cuts = [t for t in result.turns if t.barge_in is not None and t.barge_in.cut]
    if cuts:
        print(f"the user spoke over the agent {len(cuts)} time(s): turn(s) "
              f"{', '.join(str(t.turn_id) for t in cuts)} cut where they were (see transcript.txt)")
    print(f"reply audio:  {out / 'reply.wav'}\nconversation: {out / 'conversation.wav'}\n"
          f"trace:        {out / 'trace.jsonl'}\ntranscript:   {out / 'transcript.txt'}\n"
          f"report:       {out / 'report.html'}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    args.path = str(DEMO_SESSION)
    return cmd_replay(args)


def cmd_talk(args: argparse.Namespace) -> int:
    """Exit status: 0 stopped by the user; 1 a device failed mid-session; 2 PortAudio or a
    device unusable (nothing loaded); 130 Ctrl-C while the models were loading."""
    from monologue.pipeline.audio_devices import DeviceError, list_devices
    from monologue.pipeline.talk import TalkDevices, TalkOptions, run_talk

    try:
        if args.list_devices:
            print(list_devices())
            return 0
        config = _config(args)
        devices = TalkDevices(input_device=args.input, output_device=args.output, barge_in=args.barge_in)
        options = TalkOptions(devices=devices, session_id=args.session, store=_store(args, config),
                              who=_speaker(args, config), store_path=args.store, at=_at(args),
                              situation=_situation(args))
        rc = asyncio.run(run_talk(config, Path(args.out), options))
        if rc == 130:
            # Stopped while a model was still loading on its thread: native loaders cannot be
            # interrupted, and letting the interpreter finalise under them aborts the process.
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(130)
        return rc
    except DeviceError as exc:
        print(f"monologue: {exc}", file=sys.stderr)
        return 2


def cmd_simulate(args: argparse.Namespace) -> int:
    from monologue.pipeline.simulate import simulate

    try:
        return simulate(args)
    except (FileNotFoundError, ValueError) as exc:
        print(f"monologue simulate: {exc}", file=sys.stderr)
        return 2


def cmd_chat(args: argparse.Namespace) -> int:
    from monologue.pipeline.builder import load_text_models
    from monologue.pipeline.text_chat import run_script

    config = _config(args)
    path = Path(args.script)
    if not path.is_file():
        print(f"monologue: script {path} does not exist", file=sys.stderr)
        return 2
    from monologue.pipeline.builder import user_memory

    models = load_text_models(config)
    user, household = _speaker(args, config)
    long_term = user_memory(config, models, user, args.store, at=_at(args), household=household)
    if long_term is not None:
        long_term.situation = _situation(args)
    run_script(path, config, models, store=_store(args, config), session_id=args.session,
               out_dir=Path(args.out) if args.out else None, long_term=long_term)
    return 0


def _speaker(args: argparse.Namespace, config: MonologueConfig) -> tuple[str | None, str]:
    """Who is speaking (the user whose long-term memory this session reads and writes) and
    their household: `--user`, else the user of the `--context seat=…` in `long_term.seats`.
    (None, "") off the record; (None, household) when nobody is known to be speaking."""
    household = getattr(args, "household", None) or config.long_term.household
    if getattr(args, "no_history", False):
        print("no-history session: nothing is read from or written to long-term memory"
              + (f" for {args.user!r}" if args.user else ""), flush=True)
        return None, ""
    if args.user:
        return args.user, household
    seat = _situation(args).get("seat", "")
    seated = config.long_term.seat_user(seat)
    if seated:
        print(f"speaker: {seated} (seat {seat})", flush=True)
        return seated, household
    if household:
        print(f"speaker unknown: only the household {household!r}'s shared memories are read", flush=True)
    return None, household


def _situation(args: argparse.Namespace) -> dict[str, str]:
    pairs = [p for p in (getattr(args, "context", None) or "").split(",") if p.strip()]
    if any("=" not in p for p in pairs):
        from monologue.configs import ConfigError

        raise ConfigError(f"--context {args.context!r}: use key=value pairs separated by commas, "
                          "e.g. passengers=kids,weather=rain")
    return {k.strip(): v.strip() for k, v in (p.split("=", 1) for p in pairs)}


def _at(args: argparse.Namespace) -> float | None:
    """--at 2026-11-23T19:00 → epoch seconds (the session's date for long-term memory)."""
    import datetime as dt

    if not getattr(args, "at", None):
        return None
    try:
        return dt.datetime.fromisoformat(args.at).timestamp()
    except ValueError:
        from monologue.configs import ConfigError

        raise ConfigError(f"--at {args.at!r} is not an ISO date/time; "
                          "use e.g. 2026-11-23 or 2026-11-23T19:00") from None


def cmd_import_sgd(args: argparse.Namespace) -> int:
    from monologue.configs import ConfigError
    from monologue.memory.domain.sgd import import_file

    try:
        text = import_file(args.schema, args.service)
    except (OSError, ValueError) as exc:
        raise ConfigError(str(exc)) from exc
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out}")
    else:
        print(text, end="")
    return 0


# --- monologue report: a session's trace as one HTML page (E4) -------------------------------
def cmd_report(args: argparse.Namespace) -> int:
    from monologue.configs import ConfigError
    from monologue.pipeline.report import find_traces, write_report

    traces = find_traces(Path(args.trace))
    if not traces:
        raise ConfigError(f"no trace at {args.trace}: give a trace.jsonl, or the --out folder of a session "
                          "(replay, demo, chat or talk write trace.jsonl there)")
    if args.output and len(traces) > 1:
        raise ConfigError(f"{args.trace} holds {len(traces)} sessions; -o names one page, so leave it out "
                          "and each report is written beside its trace")
    for trace in traces:
        try:
            page = write_report(trace, Path(args.output) if args.output else None)
        except OSError as exc:
            raise ConfigError(f"could not write the report for {trace}: {exc.strerror or exc}; "
                              "choose another place with -o") from None
        print(f"report: {page}")
    return 0


def _add_report_parser(sub: Any) -> None:
    report = sub.add_parser("report", help="a session's trace as one self-contained HTML page")
    report.add_argument("trace", help="a trace.jsonl, or the session folder (--out) that holds it")
    report.add_argument("-o", "--output", help="the HTML file to write (default: report.html beside the trace)")
    report.set_defaults(func=cmd_report)
# --- end of monologue report ------------------------------------------------------------------


# --- serve: live rooms (pipeline/serve.py) ---------------------------------------------

def _server_logs(args: argparse.Namespace) -> None:
    """A server's log says when sessions open and end, and why; `--log-format json` writes one
    JSON object a line (time, level, where, session_id, message) for a log collector."""
    from loguru import logger

    from monologue.pipeline.server.log_format import json_log_line

    if args.log_format == "json":
        logger.remove()
        logger.add(sys.stderr, level="DEBUG" if args.verbose else "INFO", format=json_log_line, colorize=False,
                   filter=_worth_showing)
    elif not args.verbose:
        logger.add(sys.stderr, level="INFO", filter=lambda r: r["level"].no < 30 and (r["name"] in (
            "monologue.pipeline.serve", "monologue.pipeline.remote", "monologue.pipeline.workers")
            or r["name"].startswith("monologue.pipeline.server.")))


def cmd_serve(args: argparse.Namespace) -> int:
    from monologue.pipeline.builder import load_models
    from monologue.pipeline.serve import serve
    from monologue.pipeline.server.room_server import RoomServer
    from monologue.pipeline.server.rooms import ServeOptions
    from monologue.pipeline.sockets import bind

    _server_logs(args)
    if args.workers < 1:
        from monologue.configs import ConfigError

        raise ConfigError(f"--workers {args.workers}: give 1 or more worker processes")
    config = _config(args)
    auth: Any = _auth_mode(args, config) if args.transport == "webrtc" else "open"
    if args.workers > 1:
        from monologue.configs import ConfigError

        if args.transport != "webrtc":
            raise ConfigError("--workers serves browser rooms (--transport webrtc); a Daily/LiveKit session is "
                              "one process: run one `monologue serve --transport …` per room")
        from monologue.pipeline.workers import Supervisor

        print(f"Monologue: {args.workers} workers on http://{args.host}:{args.port}…{args.port + args.workers - 1}"
              "/ (put a load balancer in front; see README); Ctrl-C drains and stops them", flush=True)
        after = args.argv[args.argv.index("serve") + 1:]
        return Supervisor(after, args.port, args.workers, verbose=args.verbose).run()
    options = ServeOptions(out_dir=Path(args.out), store_path=args.store, idle_secs=args.idle_timeout,
                           max_rooms=args.max_rooms, auth=auth, limits=_limits(config))
    if args.transport != "webrtc":
        from monologue.pipeline.remote import transport_module

        transport_module(args.transport)   # a missing extra is reported before models load
    sock = bind(args.host, args.port) if args.transport == "webrtc" else None
    if args.text_only:
        from monologue.pipeline.builder import load_text_models

        models = load_text_models(config)
    else:
        models = load_models(config)
    models.encoder()   # long-term memory's encoder (every page sends a name): once, not raced for by rooms
    _print_models_loaded(models)
    server = RoomServer(config, models, options)
    if sock is None:
        from monologue.pipeline.remote import run_remote_room

        room = asyncio.run(run_remote_room(server, args.transport, args.user or ""))
        print(f"session {room.session_id}; record in {room.out_dir}")
        return 0
    if args.text_only:
        print(f"Monologue text sessions on http://{args.host}:{args.port}/api/chat (POST {{text, session_id, user}}); "
              f"Ctrl-C stops (sessions are recorded in {args.out}/<session id>/)", flush=True)
    else:
        print(f"Monologue rooms on http://{args.host}:{args.port}/ — open it in a browser; Ctrl-C stops "
              f"(sessions are recorded in {args.out}/<session id>/)", flush=True)
    serve(server, sock)
    return 0


def _auth_mode(args: argparse.Namespace, config: Any) -> Any:
    """Whether the server asks for credentials: yes when the store has any; on an address others
    can reach, it must (or --insecure-no-auth says, loudly, that it will not)."""
    from loguru import logger

    from monologue.configs import ConfigError
    from monologue.pipeline.builder import stores
    from monologue.pipeline.front_door import choose_mode

    has_credentials = stores(config, args.store).access.any_credentials()
    try:
        mode, warning = choose_mode(args.host, has_credentials, args.insecure_no_auth)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if warning:
        logger.warning(warning)
        print(f"WARNING: {warning}", file=sys.stderr, flush=True)
    elif mode == "open" and args.verbose:
        logger.info(f"serving {args.host} without credentials: whoever can reach it names themselves")
    return mode


def _limits(config: Any) -> Any:
    from monologue.pipeline.front_door import Limits

    s = config.server
    return Limits(max_body_bytes=s.max_body_bytes, max_json_depth=s.max_json_depth, turns_per_sec=s.turns_per_sec,
                  turn_burst=s.turn_burst, rooms_per_user=s.rooms_per_user)


def _add_serve(sub: Any) -> None:
    serve = sub.add_parser("serve", help="live rooms: talk to the agent from a browser (WebRTC), "
                                         "or join a Daily/LiveKit room", allow_abbrev=False)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=7860)
    serve.add_argument("--out", default="out/serve", help="each session's trace and transcript go in OUT/<session id>/")
    serve.add_argument("--transport", choices=("webrtc", "daily", "livekit"), default="webrtc",
                       help="webrtc: serve the page and browser rooms; daily: join DAILY_ROOM_URL (DAILY_TOKEN or "
                            "DAILY_API_KEY); livekit: join LIVEKIT_ROOM at LIVEKIT_URL (LIVEKIT_TOKEN or "
                            "LIVEKIT_API_KEY + LIVEKIT_API_SECRET)")
    serve.add_argument("--config", help="YAML file over configs/default.yaml")
    serve.add_argument("--vad", choices=("silero", "webrtc"), help="voice activity detector")
    serve.add_argument("--language", choices=("en", "zh", "auto"),
                       help="en, zh, or auto: each turn answered in the language it was spoken in")
    serve.add_argument("--llm", help="litellm model string, e.g. openai/gpt-4o-mini")
    serve.add_argument("--store", help="SQLite file for session state and memories (default: store.path)")
    serve.add_argument("--user", help="daily/livekit: remember this user across sessions (browser rooms "
                                      "use the name typed on the page)")
    serve.add_argument("--idle-timeout", type=float, default=600.0,
                       help="close a room after this many seconds without speech (default 600)")
    serve.add_argument("--max-rooms", type=int, default=16, help="rooms at once; more get HTTP 503 (default 16)")
    serve.add_argument("--workers", type=int, default=1,
                       help="worker processes, on ports PORT…PORT+N-1, restarted if they exit; they share "
                            "store.url/state.url, so any worker continues any session (default 1)")
    serve.add_argument("--text-only", action="store_true",
                       help="load no speech models: sessions by POST /api/chat only (a chat backend, a load test)")
    serve.add_argument("--insecure-no-auth", action="store_true",
                       help="serve without credentials even on an address others can reach: anyone who reaches it "
                            "can talk as any user (default: credentials from `monologue users add` are required "
                            "off 127.0.0.1, and whenever the store has any)")
    serve.add_argument("--log-format", choices=("text", "json"), default="text",
                       help="json: one JSON object a line, with the session id (default text)")
    serve.set_defaults(func=cmd_serve)


# --- llm-server: one embedded LLM for many workers (pipeline/llm_server.py) ---------------

def cmd_llm_server(args: argparse.Namespace) -> int:
    from monologue.pipeline.llm_server import run_llm_server

    if args.verbose:
        from loguru import logger

        logger.add(sys.stderr, level="INFO", filter=lambda r: r["name"] == "monologue.pipeline.llm_server")
    run_llm_server(args.host, args.port, args.model, args.n_ctx, args.n_threads, args.cache_mb,
                   args.api_key or None)
    return 0


def _add_llm_server(sub: Any) -> None:
    from monologue.models.llm import LOCAL_MODELS, PROVIDER

    server = sub.add_parser("llm-server", help="serve the embedded LLM to many workers over OpenAI's HTTP API "
                                               "(instead of a copy in each)")
    server.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    server.add_argument("--port", type=int, default=8080)
    server.add_argument("--model", default=f"{PROVIDER}/qwen2.5-0.5b-instruct",
                        choices=[f"{PROVIDER}/{name}" for name in LOCAL_MODELS])
    server.add_argument("--n-ctx", type=int, default=2048, help="context length (default 2048)")
    server.add_argument("--n-threads", type=int, default=2, help="CPU threads (default 2)")
    server.add_argument("--cache-mb", type=int, default=256,
                        help="RAM for saved prompt states per context: sessions find their prefix again (default 256)")
    server.add_argument("--api-key", default=os.environ.get("MONOLOGUE_LLM_API_KEY", ""),
                        help="refuse requests without this bearer key (default: $MONOLOGUE_LLM_API_KEY; "
                             "workers send it as OPENAI_API_KEY)")
    server.set_defaults(func=cmd_llm_server)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="monologue", description="A real-time voice agent that does not forget.")
    parser.add_argument("-v", "--verbose", action="store_true", help="show pipecat's debug log")
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--config", help="YAML file over configs/default.yaml")
        p.add_argument("--vad", choices=("silero", "webrtc"), help="voice activity detector")
        p.add_argument("--language", choices=("en", "zh", "auto"),
                       help="en, zh, or auto: each turn answered in the language it was spoken in")
        p.add_argument("--llm", help="litellm model string, e.g. openai/gpt-4o-mini")
        p.add_argument("--out", default="out", help="folder for reply.wav, trace.jsonl, transcript.txt")
        p.add_argument("--session", type=_session_id_arg,
                       help="session id (default: a new one); the same id continues its state")
        p.add_argument("--store", help="SQLite file for session state and memories (default: store.path)")
        p.add_argument("--user", help="remember this user across sessions (long-term memory); none: nothing is kept")
        p.add_argument("--no-history", action="store_true",
                       help="a session off the record: long-term memory is neither read nor written; "
                            "saying \"don't remember this conversation\" does the same from that turn on")
        p.add_argument("--context", help="what the transport knows about the moment, stored with each memory: "
                                         "key=value pairs, e.g. passengers=kids,weather=rain; seat=driver names "
                                         "the speaker through long_term.seats")
        p.add_argument("--household", help="the household whose shared memories (\"we always avoid tolls\") "
                                           "every member's recall reads; with no --user, only those are read")
        p.add_argument("--at", help="date/time the session happens at, for long-term memory (ISO, e.g. "
                                    "2026-11-23T19:00): replays recorded sessions with their dates")

    replay = sub.add_parser("replay", help="replay a recorded session (file or folder of turn files)")
    replay.add_argument("path")
    replay.add_argument("--paced", action="store_true", help="feed audio in real time instead of as fast as possible")
    common(replay)
    replay.set_defaults(func=cmd_replay)

    demo = sub.add_parser("demo", help="replay the bundled demo session")
    demo.add_argument("--paced", action="store_true")
    common(demo)
    demo.set_defaults(func=cmd_demo)

    talk = sub.add_parser("talk", help="talk through the microphone and speaker",
                          description="Talk to the agent through the microphone and speaker. Ctrl-C stops "
                                      "(twice: at once). OUT gets trace.jsonl, transcript.txt, reply.wav "
                                      "(the agent as played) and heard.wav (the microphone as the agent heard it).")
    talk.add_argument("--list-devices", action="store_true", help="list audio devices and exit")
    talk.add_argument("--input", help="input device: index or part of its name (default: the system's)")
    talk.add_argument("--output", help="output device: index or part of its name (default: the system's)")
    talk.add_argument("--barge-in", action="store_true",
                      help="keep the microphone open while the agent speaks, so your voice interrupts it; "
                           "use headphones (no echo cancelling). Default: half-duplex, the microphone is "
                           "muted while the agent speaks")
    common(talk)
    talk.set_defaults(func=cmd_talk)

    simulate = sub.add_parser("simulate", help="simulated users (goal-driven, real people's phrasing) talk to the "
                                               "agent; prints what whole conversations got right and wrong")
    from monologue.pipeline.simulate_cli import add_arguments as simulate_arguments

    simulate_arguments(simulate, n=10, domains="restaurant", languages="en", returns=0, model_subset=0)
    simulate.set_defaults(func=cmd_simulate)
    chat = sub.add_parser("chat", help="a scripted text conversation through the same processors")
    chat.add_argument("--script", required=True, help="one user turn per line, '#' comments, '---' between sessions")
    common(chat)
    chat.set_defaults(func=cmd_chat, out=None)

    state = sub.add_parser("state", help="inspect working memory")
    state_sub = state.add_subparsers(dest="state_command", required=True)
    show = state_sub.add_parser("show", help="a session's state and its history of changes")
    show.add_argument("session")
    show.add_argument("--config")
    show.add_argument("--store")
    show.add_argument("--json", action="store_true")
    show.set_defaults(func=inspection.cmd_state_show)

    memory = sub.add_parser("memory", help="see, search and erase what is remembered about a user")
    memory_sub = memory.add_subparsers(dest="memory_command", required=True)
    for name, helptext in (("list", "every memory of the user"), ("show", "one memory, its evidence and audit"),
                           ("search", "memories ranked for a question"),
                           ("forget", "delete one memory"), ("erase", "delete every memory of the user")):
        cmd = memory_sub.add_parser(name, help=helptext)
        cmd.add_argument("--user", required=True)
        cmd.add_argument("--config")
        cmd.add_argument("--store")
        if name == "search":
            cmd.add_argument("query")
            cmd.add_argument("-k", type=int, default=10)
        if name in ("forget", "show"):
            cmd.add_argument("id")
        if name == "erase":
            cmd.add_argument("--yes", action="store_true")
        cmd.set_defaults(func=inspection.cmd_memory)
    rotate = memory_sub.add_parser("rotate-key", help="seal the store under a new key (stop sessions first); "
                                   "the key file gets it, or give it in $MONOLOGUE_NEW_STORE_KEY")
    rotate.add_argument("--config")
    rotate.add_argument("--store")
    rotate.set_defaults(func=inspection.cmd_memory_key)
    memory_sub.add_parser("new-key", help="print a new store key (for $MONOLOGUE_STORE_KEY)").set_defaults(
        func=inspection.cmd_memory_key)

    profile = sub.add_parser("profile", help="a user's lasting preferences and their audit log")
    profile_sub = profile.add_subparsers(dest="profile_command", required=True)
    profile_show = profile_sub.add_parser("show")
    profile_show.add_argument("--user", required=True)
    profile_show.add_argument("--config")
    profile_show.add_argument("--store")
    profile_show.set_defaults(func=inspection.cmd_profile_show)

    sessions = sub.add_parser("sessions", help="a user's past sessions: summaries, status, open promises")
    sessions.add_argument("--user", required=True)
    sessions.add_argument("--config")
    sessions.add_argument("--store")
    sessions.set_defaults(func=inspection.cmd_sessions)

    actions = sub.add_parser("actions", help="what the agent did for a user (bookings, routes, tickets)")
    owner = actions.add_mutually_exclusive_group(required=True)
    owner.add_argument("--user")
    owner.add_argument("--session", help="a session run without --user")
    actions.add_argument("--config")
    actions.add_argument("--store")
    actions.set_defaults(func=inspection.cmd_actions)

    domain = sub.add_parser("domain", help="domain schemas: import one from another format")
    domain_sub = domain.add_subparsers(dest="domain_command", required=True)
    import_sgd = domain_sub.add_parser("import-sgd", help="a domain YAML from a Schema-Guided Dialogue service schema")
    import_sgd.add_argument("schema", help="an SGD schema.json")
    import_sgd.add_argument("--service", required=True, help="the service to import, e.g. Restaurants_2")
    import_sgd.add_argument("--out", help="YAML file to write (default: print it)")
    import_sgd.set_defaults(func=cmd_import_sgd)

    _add_report_parser(sub)
    _add_serve(sub)
    add_users_parser(sub)
    _add_llm_server(sub)

    models = sub.add_parser("models", help="list each model, its package, size and whether it loads")
    models.add_argument("--load", action="store_true", help="load each model (slower) instead of only finding it")
    models.add_argument("--strict", action="store_true", help="exit 1 when a model is missing")
    models.set_defaults(func=inspection.cmd_models)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)   # `serve --workers` passes it on
    _quiet_logs(args.verbose)
    from monologue.configs import ConfigError
    from monologue.memory.stores.sealing import SealedDataError, StoreKeyError
    from monologue.models.errors import ModelUnavailable
    from monologue.pipeline.audio_io import AudioInputError

    try:
        return int(args.func(args) or 0)
    except (AudioInputError, ConfigError, ModelUnavailable, StoreKeyError, SealedDataError) as exc:
        print(f"monologue: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("monologue: stopped", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`monologue memory list | head`): nothing more to say to it.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
