"""Broadcast replay (realtime-js `config.broadcast.replay = {since, limit}` on a private
channel): at join, the topic's latest private broadcasts stored in realtime.messages since
`since` (Unix milliseconds), at most `limit` (10 by default, 1 to 25), oldest first, pushed
after the join reply with `meta: {replayed: true, id}`. As Realtime's join does, with its
errors; the messages are read as the subscriber, under the realtime.messages policies
(realtime.topic() set), on the authenticator's pool.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg

from server.core.caller import Caller
from server.core.health import is_unavailable
from server.realtime.auth import ChannelError, Pool, act_as

HARD_LIMIT = 25
DEFAULT_LIMIT = 10
DEFAULT_SINCE = 0
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Elixir's DateTime.from_unix/2 range (years -9999 to 9999): beyond, Realtime refuses the params.
_MAX_MS = 253402300799999
_MIN_MS = -377705116800000
_YEAR_ONE_MS = -62135596800000  # older than that, every stored message qualifies

# Stored `timestamp`s are the writer's now() in the session's time zone, so `since` is
# compared in that zone; partitions in the future are not searched (a minute of drift allowed).
_REPLAY_SQL = """
select id::text, event, payload::text, binary_payload
from realtime.messages
where topic = %s and private is true and extension = 'broadcast'
  and inserted_at >= coalesce(%s::timestamptz at time zone current_setting('TimeZone'), '-infinity')
  and inserted_at < (now() + interval '1 minute')::timestamp
order by inserted_at desc
limit %s
"""


@dataclass(frozen=True)
class StoredMessage:
    id: str
    event: str
    payload: Any  # JSON text, or bytes for a binary payload
    is_json: bool


def _param(value: Any, default: int) -> int:
    """Realtime takes `value || default`, then requires an integer (not a float, not a bool)."""
    if value is None or value is False:
        return default
    if type(value) is not int:
        raise ChannelError("UnableToReplayMessages", "Replay params are not valid")
    return value


def check(private: bool, broadcast_read: bool, topic: str) -> None:
    """Refusals Realtime makes before reading anything, in its order."""
    if private and not broadcast_read:
        raise ChannelError("Unauthorized", f"You do not have permissions to read from this Channel topic: {topic}")
    if not private:
        raise ChannelError("UnableToReplayMessages", "Replay is not allowed for public channels")


async def fetch(pool: Pool, topic: str, caller: Caller, params: Any) -> list[StoredMessage]:
    """The messages to replay, oldest first; [] when `params` is not a map (Realtime ignores it)."""
    if not isinstance(params, dict):
        return []
    since = _param(params.get("since"), DEFAULT_SINCE)
    limit = max(min(_param(params.get("limit"), DEFAULT_LIMIT), HARD_LIMIT), 1)
    if not _MIN_MS <= since <= _MAX_MS:
        raise ChannelError("UnableToReplayMessages", "Replay params are not valid")
    since_at = None if since < _YEAR_ONE_MS else _EPOCH + timedelta(milliseconds=since)
    try:
        async with pool.connection() as conn, conn.transaction(force_rollback=True):
            await act_as(conn, topic, caller)
            cur = await conn.execute(_REPLAY_SQL, [topic, since_at, limit])
            rows = await cur.fetchall()
    except Exception as exc:
        if not isinstance(exc, psycopg.Error) and not is_unavailable(exc):
            raise
        raise ChannelError("UnableToReplayMessages", "Realtime was unable to replay messages") from None
    return [StoredMessage(mid, event or "", payload if binary is None else bytes(binary), binary is None)
            for mid, event, payload, binary in reversed(rows)]
