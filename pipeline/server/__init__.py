"""The parts of `monologue serve` (the app that puts them together is `pipeline/serve.py`):

- `room.py`: one room (a live session) and the transports a room can run over;
- `rooms.py`: `RoomHost`, the rooms of one process: runs, ends and drains them;
- `idle_watch.py`: closes a room nobody speaks in;
- `signalling.py`: WebRTC offer/answer and trickle ICE, which open a browser room;
- `chat_api.py`: `POST /api/chat`, a session by typed turns (a text room);
- `takeover.py`: who owns a session, and taking one up that went on on another worker;
- `readiness.py`: whether the stores answer (`/api/ready`);
- `request_checks.py`: who a request is from, and what is wrong with a bad one;
- `log_format.py`: `--log-format json`;
- `room_server.py`: `RoomServer`, a `RoomHost` with the ways in above.
"""
