"""Presence shared by every process: entries live in realtime.presences, diffs travel on
the hub's bus. Shapes are Phoenix.Presence's: `{key: {metas: [{phx_ref, ...meta}]}}`."""

from __future__ import annotations

import secrets
from typing import Any

import orjson

from server.core.pool import Pool
from server.realtime.limits import NODE_TIMEOUT_S


def new_ref() -> str:
    return "F" + secrets.token_urlsafe(12)


async def state(pool: Pool, topic: str, private: bool) -> dict[str, Any]:
    async with pool.connection() as conn:
        cur = await conn.execute(
            "select p.presence_key, p.phx_ref, p.meta::text from realtime.presences p"
            " join realtime.nodes n on n.id = p.node"
            " where p.topic = %s and p.private = %s and n.seen_at > now() - make_interval(secs => %s)"
            " order by p.updated_at",
            [topic, private, NODE_TIMEOUT_S])
        rows = await cur.fetchall()
    result: dict[str, Any] = {}
    for key, ref, meta in rows:
        result.setdefault(key, {"metas": []})["metas"].append({**orjson.loads(meta), "phx_ref": ref})
    return result


async def track(pool: Pool, node: str, topic: str, private: bool, key: str,
                meta: dict[str, Any], previous: tuple[str, dict[str, Any]] | None) -> tuple[str, dict[str, Any]]:
    """Store the entry (replacing the channel's previous one); returns (ref, diff)."""
    ref = new_ref()
    async with pool.connection() as conn:
        if previous is not None:
            await conn.execute("delete from realtime.presences where phx_ref = %s", [previous[0]])
        await conn.execute(
            "insert into realtime.presences (phx_ref, topic, private, presence_key, node, meta)"
            " values (%s, %s, %s, %s, %s, %s::jsonb)",
            [ref, topic, private, key, node, orjson.dumps(meta).decode()])
    joined = {**meta, "phx_ref": ref}
    leaves: dict[str, Any] = {}
    if previous is not None:
        joined["phx_ref_prev"] = previous[0]
        leaves = {key: {"metas": [{**previous[1], "phx_ref": previous[0]}]}}
    return ref, {"joins": {key: {"metas": [joined]}}, "leaves": leaves}


async def untrack(pool: Pool, key: str, entry: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    async with pool.connection() as conn:
        await conn.execute("delete from realtime.presences where phx_ref = %s", [entry[0]])
    return {"joins": {}, "leaves": {key: {"metas": [{**entry[1], "phx_ref": entry[0]}]}}}
