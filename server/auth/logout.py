"""POST /logout?scope=global|local|others: ends sessions by deleting their rows (GoTrue's Logout).

The scope defaults to global, as in GoTrue: every session of the user ends. A token without
a session (hand-made) ends every session whatever the scope, as GoTrue then revokes all the
user's refresh tokens.
"""

from __future__ import annotations

from psycopg import AsyncConnection
from starlette.requests import Request
from starlette.responses import Response

from server.auth import error_codes as codes
from server.auth import sessions
from server.auth.authn import signed_in
from server.auth.db import in_transaction
from server.auth.errors import bad_request
from server.auth.models import sessions as session_rows
from server.auth.service import AuthService
from server.core.caller import Caller

SCOPES = ("global", "local", "others")


async def logout(svc: AuthService, request: Request, caller: Caller) -> Response:
    scope = request.query_params.get("scope") or "global"
    if scope not in SCOPES:
        raise bad_request(codes.VALIDATION_FAILED, f'Unsupported logout scope "{scope}"')

    async def work(conn: AsyncConnection) -> None:
        signed = await signed_in(conn, caller)
        user_id, session_id = signed.user["id"], signed.session_id
        await sessions.end_reason(conn, "logout")
        if scope == "local" and session_id is not None:
            await session_rows.delete(conn, session_id)
        elif scope == "others" and session_id is not None:
            await session_rows.delete_others(conn, user_id, session_id)
        else:
            await session_rows.delete_of_user(conn, user_id)

    await in_transaction(svc.ctx, work, "Error logging out user")
    return Response(status_code=204)
