"""Wire messages: pydantic models for what clients send (WebSocket and REST bodies).

Client → server WebSocket messages are JSON objects with a type field ``t``;
unknown fields are refused. Server → client frames are built by
:mod:`gunzi.server.tables` and :mod:`gunzi.server.ws` as plain dicts; their
exact shapes are documented in docs/protocol.md (``SERVER_FRAMES`` lists them).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

CLIENT_ID = r"^[A-Za-z0-9_.:\-]{1,64}$"
PROTOCOL_VERSION = 1

SERVER_FRAMES = (
    "welcome", "snapshot", "events", "table", "ack", "hint", "chat", "error", "pong", "bye",
)


class _Msg(BaseModel):
    """Strict: a field takes its JSON type only ("30" is not a clock, "yes" not a bool),
    and a refusal names the field (``bad_message`` on a socket, 422 over REST)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class Hello(_Msg):
    """First message on a socket (and again to rebind after taking a seat or to resync)."""

    t: Literal["hello"]
    last_seq: int | None = Field(default=None, ge=0)  # last event seq the client holds
    views: bool = True  # include the seat's view in every events frame


class Sync(_Msg):
    """Ask for the events after ``last_seq`` (or a snapshot when it is None or too old)."""

    t: Literal["sync"]
    last_seq: int | None = Field(default=None, ge=0)


class Act(_Msg):
    """A decision for the connection's own seat. ``id`` makes a resend idempotent."""

    t: Literal["act"]
    id: str = Field(pattern=CLIENT_ID)
    action: dict[str, Any]
    seq: int | None = Field(default=None, ge=0)  # the client's last seq: refused if stale


class HintRequest(_Msg):
    t: Literal["hint"]
    id: str | None = Field(default=None, pattern=CLIENT_ID)


class ChatMessage(_Msg):
    t: Literal["chat"]
    text: str = Field(max_length=2000)


class AutoMessage(_Msg):
    """托管 on or off for the connection's seat."""

    t: Literal["auto"]
    on: bool


class Ping(_Msg):
    t: Literal["ping"]


ClientMessage = Annotated[
    Hello | Sync | Act | HintRequest | ChatMessage | AutoMessage | Ping,
    Field(discriminator="t"),
]
CLIENT_MESSAGE: TypeAdapter[Any] = TypeAdapter(ClientMessage)

# Keys an ``act`` action may carry (the seat is the connection's; ``deal`` is the server's).
ACTION_KEYS = frozenset({"type", "seat", "cards", "suit", "take"})
PLAYER_ACTIONS = frozenset(
    {"declare", "pass", "tribute", "return", "bury", "bury_jokers", "play"}
)


def dumps(frame: dict[str, Any]) -> str:
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))


# ------------------------------------------------------------------------ REST bodies


class CreateTable(_Msg):
    preset: str = "gunzi"
    options: dict[str, Any] = Field(default_factory=dict)  # rule option overrides
    name: str | None = Field(default=None, max_length=64)
    public: bool = True
    clock: int | None = Field(default=None, ge=0)  # seconds per decision; 0 = off
    max_hands: int = Field(default=0, ge=0, le=1000)  # stop after this many hands; 0 = match
    counter: bool = True  # the page's 记牌器 (card counter); False switches it off
    seat: int | None = Field(default=None, ge=0, le=3)  # take this seat at once


class BotBody(_Msg):
    bot: str = "rule"


class QuickPlay(_Msg):
    preset: str = "gunzi"
    options: dict[str, Any] = Field(default_factory=dict)
    clock: int | None = Field(default=None, ge=0)
    public: bool = False
    max_hands: int = Field(default=0, ge=0, le=1000)
    counter: bool = True
    bot: str | None = None
