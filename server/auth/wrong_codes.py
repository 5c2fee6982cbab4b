"""Guessing bounds for one-time codes: a pending code dies after MAX_WRONG_CODES wrong tries,
whatever the client's address.

GoTrue bounds guessing only by its per-client rate limits, so a client rotating addresses
(or many clients) guesses a six-digit code at will. Here each try at a user's pending code is
counted in PostgreSQL (auth.one_time_code_tries, platform_schema/0160), so that every worker
of every replica counts together. The user is the one the request names (its e-mail address
or phone number), the code the one in a token column of auth.users (GoTrue's
confirmation_token, recovery_token, ...), sent at that column's *_sent_at time: a new code
starts a new count, and a code at its MAX_WRONG_CODES-th wrong try is deleted, so that even
the right one then fails as a wrong one does (the refusal says nothing about the code). The
user asks for a new code.

The try is counted before the code is compared, with the user's row locked by the caller:
tries at one user's code are taken one at a time, and concurrent ones cannot all be compared
against a code that should already be gone. MFA challenges count their wrong answers with the
same number (server.auth.mfa_factor).
"""

from __future__ import annotations

import uuid

from psycopg import AsyncConnection

from server.auth.models import one_time_code_tries, one_time_tokens, users

# Wrong tries a code, nonce or MFA challenge survives minus one: the fifth wrong try ends it.
# GoTrue's own bound on recovery codes (GOTRUE_MFA_RECOVERY_CODES_MAX_VERIFY_ATTEMPTS) is 5.
MAX_WRONG_CODES = 5

# The send time of each token column's code.
SENT_AT = {
    "confirmation_token": "confirmation_sent_at",
    "recovery_token": "recovery_sent_at",
    "email_change_token_new": "email_change_sent_at",
    "phone_change_token": "phone_change_sent_at",
    "reauthentication_token": "reauthentication_sent_at",
}


async def take_try(conn: AsyncConnection, user_id: uuid.UUID, column: str) -> bool:
    """Count one try at the user's code in `column` (a key of SENT_AT), before it is compared;
    False when the code has had its MAX_WRONG_CODES wrong tries already: it is then deleted,
    and nothing may be accepted for it (not even a test number's fixed code). The caller holds
    the user's row lock."""
    tries = await one_time_code_tries.take(conn, user_id, column, SENT_AT[column])
    if tries is None:  # no such user: nothing to guess
        return True
    if tries > MAX_WRONG_CODES:
        await _delete_code(conn, user_id, column)
        return False
    return True


async def wrong_try(conn: AsyncConnection, user_id: uuid.UUID, column: str) -> None:
    """The try just taken was wrong: at the MAX_WRONG_CODES-th, the code is deleted. The caller
    commits (CommitThen), so that the count survives the refusal."""
    tries = await one_time_code_tries.tries(conn, user_id, column)
    if tries is not None and tries >= MAX_WRONG_CODES:
        await _delete_code(conn, user_id, column)


async def right_try(conn: AsyncConnection, user_id: uuid.UUID, columns: tuple[str, ...]) -> None:
    """The code was right: the counts start afresh."""
    await one_time_code_tries.forget(conn, user_id, list(columns))


async def _delete_code(conn: AsyncConnection, user_id: uuid.UUID, column: str) -> None:
    """The pending code goes (its send time stays: the count goes on until a new code is sent,
    and the per-user sending frequency still applies)."""
    await users.clear_code(conn, user_id, column)
    await one_time_tokens.delete_kind(conn, user_id, column)
