"""The auth.users table: its SQL (loading with identities and factors, creating, confirming) and the user object GoTrue returns."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, TypedDict, cast

import psycopg
from psycopg import AsyncConnection, sql
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from server.auth.errors import internal
from server.auth.mfa_json import factor_json

# GoTrue's email_exists message (admin create/update, invite, e-mail change, identity linking).
DUPLICATE_EMAIL = "A user with this email address has already been registered"
INSTANCE_ID = "00000000-0000-0000-0000-000000000000"
AUDIENCE = "authenticated"
ROLE = "authenticated"
SAVE_ERROR = "Database error saving new user"

class UserRow(TypedDict):
    """A row of auth.users as USER_SELECT reads it, with the user's identities."""

    id: uuid.UUID
    aud: str | None
    role: str | None
    email: str | None
    phone: str | None
    encrypted_password: str | None
    email_confirmed_at: datetime | None
    phone_confirmed_at: datetime | None
    confirmed_at: datetime | None
    invited_at: datetime | None
    confirmation_token: str | None
    confirmation_sent_at: datetime | None
    recovery_token: str | None
    recovery_sent_at: datetime | None
    email_change: str | None
    email_change_token_new: str | None
    email_change_sent_at: datetime | None
    phone_change: str | None
    phone_change_sent_at: datetime | None
    reauthentication_sent_at: datetime | None
    last_sign_in_at: datetime | None
    raw_app_meta_data: dict[str, Any] | None
    raw_user_meta_data: dict[str, Any] | None
    created_at: datetime
    updated_at: datetime | None
    banned_until: datetime | None
    is_banned: bool | None
    is_anonymous: bool
    is_sso_user: bool
    deleted_at: datetime | None
    identities: list[dict[str, Any]]
    factors: list[dict[str, Any]]  # auth.mfa_factors rows (server.auth.mfa_json formats them)


USER_SELECT = sql.SQL("""
select u.id, u.aud, u.role, u.email, u.phone, u.encrypted_password,
       u.email_confirmed_at, u.phone_confirmed_at, u.confirmed_at, u.invited_at,
       u.confirmation_token, u.confirmation_sent_at, u.recovery_token, u.recovery_sent_at,
       u.email_change, u.email_change_token_new, u.email_change_sent_at,
       u.phone_change, u.phone_change_sent_at, u.reauthentication_sent_at, u.last_sign_in_at,
       u.raw_app_meta_data, u.raw_user_meta_data, u.created_at, u.updated_at,
       u.banned_until, u.banned_until > now() as is_banned, u.is_anonymous, u.is_sso_user, u.deleted_at,
       coalesce((select json_agg(json_build_object(
           'identity_id', i.id, 'id', i.provider_id, 'user_id', i.user_id,
           'identity_data', i.identity_data, 'provider', i.provider,
           'last_sign_in_at', i.last_sign_in_at, 'created_at', i.created_at,
           'updated_at', i.updated_at, 'email', i.email) order by i.created_at)
         from auth.identities i where i.user_id = u.id), '[]'::json) as identities,
       coalesce((select json_agg(json_build_object(
           'id', f.id, 'created_at', f.created_at, 'updated_at', f.updated_at, 'status', f.status,
           'friendly_name', f.friendly_name, 'factor_type', f.factor_type, 'phone', f.phone,
           'last_challenged_at', f.last_challenged_at, 'web_authn_aaguid', f.web_authn_aaguid,
           'last_webauthn_challenge_data', f.last_webauthn_challenge_data) order by f.created_at, f.id)
         from auth.mfa_factors f where f.user_id = u.id), '[]'::json) as factors
  from auth.users u
 where {where}
""")


async def find_user(conn: AsyncConnection, where: sql.Composable, params: list[Any], *, lock: bool = False) -> UserRow | None:
    query = USER_SELECT.format(where=where)
    if lock:
        query = sql.SQL("{} for no key update of u").format(query)
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(query, params)
        return cast("UserRow | None", await cur.fetchone())


async def user_by_id(conn: AsyncConnection, user_id: Any, *, lock: bool = False) -> UserRow | None:
    try:
        uid = user_id if isinstance(user_id, uuid.UUID) else uuid.UUID(str(user_id))
    except ValueError:
        return None
    return await find_user(conn, sql.SQL("u.id = %s"), [uid], lock=lock)


async def user_by_email(conn: AsyncConnection, email: str, *, lock: bool = False) -> UserRow | None:
    return await find_user(conn, sql.SQL("lower(u.email) = lower(%s) and u.aud = %s and not u.is_sso_user"),
                           [email, AUDIENCE], lock=lock)


async def user_by_phone(conn: AsyncConnection, phone: str, *, lock: bool = False) -> UserRow | None:
    """GoTrue's FindUserByPhoneAndAudience (`phone` in its stored form: digits, no '+')."""
    return await find_user(conn, sql.SQL("u.phone = %s and u.aud = %s and not u.is_sso_user"), [phone, AUDIENCE], lock=lock)


async def user_by_phone_change(conn: AsyncConnection, phone: str, *, lock: bool = False) -> UserRow | None:
    """GoTrue's FindUserByPhoneChangeAndAudience: the user changing to `phone`."""
    return await find_user(conn, sql.SQL("u.phone_change = %s and u.aud = %s and not u.is_sso_user"),
                           [phone, AUDIENCE], lock=lock)


async def written_user(conn: AsyncConnection, user_id: uuid.UUID) -> UserRow:
    """A user this transaction has just written or holds: it exists."""
    user = await user_by_id(conn, user_id)
    if user is None:
        raise LookupError(f"user {user_id} vanished inside its own transaction")
    return user


def timestamp(value: datetime | None) -> str | None:
    """RFC 3339 in UTC with a `Z`, as Go's time.Time marshals."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def user_json(row: UserRow) -> dict[str, Any]:
    """The user object of GoTrue's models.User (optional fields left out when empty)."""
    out: dict[str, Any] = {"id": str(row["id"]), "aud": row["aud"] or "", "role": row["role"] or "",
                           "email": row["email"] or ""}
    _opt(out, "email_confirmed_at", timestamp(row["email_confirmed_at"]))
    _opt(out, "invited_at", timestamp(row["invited_at"]))
    out["phone"] = row["phone"] or ""
    _opt(out, "phone_confirmed_at", timestamp(row["phone_confirmed_at"]))
    _opt(out, "confirmation_sent_at", timestamp(row["confirmation_sent_at"]))
    _opt(out, "confirmed_at", timestamp(row["confirmed_at"]))
    _opt(out, "recovery_sent_at", timestamp(row["recovery_sent_at"]))
    _opt(out, "new_email", row["email_change"])
    _opt(out, "email_change_sent_at", timestamp(row["email_change_sent_at"]))
    _opt(out, "new_phone", row["phone_change"])
    _opt(out, "phone_change_sent_at", timestamp(row["phone_change_sent_at"]))
    _opt(out, "reauthentication_sent_at", timestamp(row["reauthentication_sent_at"]))
    _opt(out, "last_sign_in_at", timestamp(row["last_sign_in_at"]))
    out["app_metadata"] = row["raw_app_meta_data"] or {}
    out["user_metadata"] = row["raw_user_meta_data"] or {}
    out["identities"] = row["identities"] or []
    _opt(out, "factors", [factor_json(f) for f in row.get("factors") or []])
    out["created_at"] = timestamp(row["created_at"])
    out["updated_at"] = timestamp(row["updated_at"])
    _opt(out, "banned_until", timestamp(row["banned_until"]))
    out["is_anonymous"] = bool(row["is_anonymous"])
    return out


def _opt(out: dict[str, Any], key: str, value: Any) -> None:
    if value:
        out[key] = value


def email_identity_data(user_id: uuid.UUID, email: str, data: dict[str, Any], verified: bool) -> dict[str, Any]:
    identity = {"sub": str(user_id), "email": email, "email_verified": verified, "phone_verified": False}
    for key, value in data.items():
        identity.setdefault(key, value)
    return identity


async def insert_user(conn: AsyncConnection, *, email: str | None, password_hash: str | None,
                      user_meta: dict[str, Any], app_meta: dict[str, Any], is_anonymous: bool = False,
                      invited: bool = False, phone: str | None = None, exact_metadata: bool = False,
                      email_identity: bool = True) -> uuid.UUID:
    """Insert a user (app triggers on auth.users fire here) and, with an email, its email
    identity (not for a user an external identity signs up: email_identity=False).

    `exact_metadata`: the user metadata is `user_meta` as given and the identity holds only its
    claims, as GoTrue's admin createUser and invite store them (a sign-up copies both ways)."""
    user_id = uuid.uuid4()
    await conn.execute(
        "insert into auth.users (instance_id, id, aud, role, email, encrypted_password, raw_app_meta_data,"
        " raw_user_meta_data, is_super_admin, created_at, updated_at, is_anonymous, invited_at, phone)"
        " values (%s, %s, %s, %s, %s, %s, %s, %s, false, now(), now(), %s, case when %s then now() end, %s)",
        [INSTANCE_ID, user_id, AUDIENCE, ROLE, email, password_hash or "", Jsonb(app_meta), Jsonb(user_meta),
         is_anonymous, invited, phone],
    )
    if email and email_identity:
        identity = email_identity_data(user_id, email, {} if exact_metadata else user_meta, False)
        await conn.execute(
            "insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)"
            " values (%s, %s, %s, 'email', now(), now())",
            [str(user_id), user_id, Jsonb(identity)],
        )
        if not exact_metadata:  # a sign-up keeps the identity's claims in the user metadata too
            await conn.execute(
                "update auth.users set raw_user_meta_data = raw_user_meta_data || %s where id = %s",
                [Jsonb({k: v for k, v in identity.items() if k not in user_meta}), user_id],
            )
    return user_id


async def create_user(conn: AsyncConnection, **fields: Any) -> uuid.UUID:
    """insert_user, where a failing app trigger becomes GoTrue's 500 and leaves no row."""
    try:
        async with conn.transaction():  # savepoint: the error is reported, not half-applied
            return await insert_user(conn, **fields)
    except psycopg.Error as exc:
        raise internal(SAVE_ERROR) from exc


def sanitized_user(user: UserRow, data: dict[str, Any], provider: str) -> dict[str, Any]:
    """GoTrue's sanitizeUser: the answer to a repeated sign-up ("email" or "phone" `provider`),
    which must not reveal that the address or number is taken: a new id and times, the caller's
    metadata, nothing confirmed, no identities or factors, only the contact the caller gave."""
    now = datetime.now(UTC)
    fake: UserRow = {
        **user, "id": uuid.uuid4(), "role": "", "email_change": "", "created_at": now, "updated_at": now,
        "confirmation_sent_at": now, "last_sign_in_at": None, "confirmed_at": None, "email_change_sent_at": None,
        "email_confirmed_at": None, "phone_confirmed_at": None, "recovery_sent_at": None, "banned_until": None,
        "identities": [], "factors": [], "raw_user_meta_data": data,
        "raw_app_meta_data": {"provider": provider, "providers": [provider]},
    }
    if provider == "phone":
        fake["email"] = ""
    else:
        fake["phone"] = ""
    return user_json(fake)


async def confirm_email(conn: AsyncConnection, user_id: uuid.UUID) -> None:
    """GoTrue's user.Confirm: the email confirmed (kept when it was already), verified in the
    metadata (set whether or not the key was there) and in the email identity, and every
    pending code spent (ClearAllOneTimeTokensForUser)."""
    await conn.execute(
        "update auth.users set email_confirmed_at = coalesce(email_confirmed_at, now()), confirmation_token = '',"
        " raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb) || '{\"email_verified\": true}'::jsonb,"
        " updated_at = now() where id = %s",
        [user_id],
    )
    await conn.execute(
        "update auth.identities set identity_data = identity_data || '{\"email_verified\": true}'::jsonb,"
        " updated_at = now() where user_id = %s and provider = 'email'",
        [user_id],
    )
    await conn.execute("delete from auth.one_time_tokens where user_id = %s", [user_id])


async def update_providers(conn: AsyncConnection, user_id: uuid.UUID) -> None:
    """UpdateAppMetaDataProviders: providers in the order of the user's identities; provider the first."""
    await conn.execute(
        "update auth.users u set raw_app_meta_data = coalesce(u.raw_app_meta_data, '{}'::jsonb)"
        "   || jsonb_build_object('providers', p.list)"
        "   || case when jsonb_array_length(p.list) > 0 then jsonb_build_object('provider', p.list->0)"
        "      else '{}'::jsonb end, updated_at = now()"
        " from (select coalesce(jsonb_agg(provider order by first_at, provider), '[]'::jsonb) as list from"
        "       (select provider, min(created_at) as first_at from auth.identities where user_id = %s"
        "        group by provider) i) p"
        " where u.id = %s", [user_id, user_id])


async def merge_user_metadata(conn: AsyncConnection, user_id: uuid.UUID, data: dict[str, Any]) -> None:
    """`data`'s keys set in the user's metadata."""
    await conn.execute("update auth.users set raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb) || %s,"
                       " updated_at = now() where id = %s", [Jsonb(data), user_id])


async def set_user_metadata(conn: AsyncConnection, user_id: uuid.UUID, data: dict[str, Any]) -> None:
    """The user's metadata replaced by `data`."""
    await conn.execute("update auth.users set raw_user_meta_data = %s where id = %s", [Jsonb(data), user_id])


async def forget_password(conn: AsyncConnection, user_id: uuid.UUID) -> None:
    await conn.execute("update auth.users set encrypted_password = null where id = %s", [user_id])


async def ids_with_emails(conn: AsyncConnection, emails: list[str]) -> list[uuid.UUID]:
    """The non-SSO users whose address is one of `emails` (lower-case)."""
    cur = await conn.execute("select id from auth.users where lower(email) = any(%s) and not is_sso_user", [emails])
    return [row[0] for row in await cur.fetchall()]


async def email_taken(conn: AsyncConnection, email: str, *, besides: uuid.UUID | None = None) -> bool:
    """A non-SSO user of this audience (other than `besides`) has this address (lower-case)."""
    cur = await conn.execute("select 1 from auth.users where lower(email) = %s and aud = %s and not is_sso_user"
                             " and id is distinct from %s", [email, AUDIENCE, besides])
    return await cur.fetchone() is not None


async def take_email(conn: AsyncConnection, user_id: uuid.UUID, email: str) -> None:
    """The user's address becomes `email` (none when empty); every pending code and change is dropped."""
    await conn.execute(
        "update auth.users set email = nullif(%s, ''), confirmation_token = '', confirmation_sent_at = null,"
        " recovery_token = '', recovery_sent_at = null, email_change = '', email_change_token_current = '',"
        " email_change_token_new = '', email_change_sent_at = null, email_change_confirm_status = 0,"
        " phone_change = '', phone_change_token = '', phone_change_sent_at = null, reauthentication_token = '',"
        " reauthentication_sent_at = null, updated_at = now() where id = %s", [email, user_id])


async def unconfirm_email(conn: AsyncConnection, user_id: uuid.UUID) -> None:
    """The address is no longer confirmed, and the metadata says so."""
    await conn.execute(
        "update auth.users set email_confirmed_at = null, raw_user_meta_data = coalesce(raw_user_meta_data,"
        " '{}'::jsonb) || '{\"email_verified\": false}'::jsonb where id = %s", [user_id])


async def make_permanent(conn: AsyncConnection, user_id: uuid.UUID) -> None:
    """An anonymous user is one no longer."""
    await conn.execute("update auth.users set is_anonymous = false where id = %s", [user_id])


async def clear_phone(conn: AsyncConnection, user_id: uuid.UUID) -> None:
    await conn.execute("update auth.users set phone = null, phone_confirmed_at = null, updated_at = now()"
                       " where id = %s", [user_id])


async def exists(conn: AsyncConnection, user_id: uuid.UUID) -> bool:
    cur = await conn.execute("select 1 from auth.users where id = %s", [user_id])
    return await cur.fetchone() is not None


async def lock(conn: AsyncConnection, user_id: uuid.UUID) -> None:
    """The user's row locked (for no key update), which orders concurrent changes to what the user owns."""
    await conn.execute("select 1 from auth.users where id = %s for no key update", [user_id])


async def set_code(conn: AsyncConnection, user_id: Any, token_column: str, sent_column: str, hashed: str) -> None:
    """The hash of a code just sent kept in `token_column`, and when it was sent in `sent_column`."""
    await conn.execute(sql.SQL("update auth.users set {} = %s, {} = now() where id = %s").format(
        sql.Identifier(token_column), sql.Identifier(sent_column)), [hashed, user_id])


async def clear_code(conn: AsyncConnection, user_id: uuid.UUID, token_column: str) -> None:
    """The pending code of `token_column` gone (its send time stays)."""
    await conn.execute(sql.SQL("update auth.users set {} = '' where id = %s").format(sql.Identifier(token_column)),
                       [user_id])


async def fresh_code(conn: AsyncConnection, user_id: uuid.UUID, token_column: str, sent_column: str,
                     lifetime: float) -> tuple[str, bool] | None:
    """The kept hash of `token_column` ('' when none) and whether it was sent within `lifetime` seconds."""
    cur = await conn.execute(
        sql.SQL("select coalesce({token}, ''), coalesce({sent} + make_interval(secs => %s) >= now(), false)"
                " from auth.users where id = %s").format(
            token=sql.Identifier(token_column), sent=sql.Identifier(sent_column)),
        [lifetime, user_id])
    row = await cur.fetchone()
    return (str(row[0]), bool(row[1])) if row is not None else None


async def reauthentication_nonce(conn: AsyncConnection, user_id: uuid.UUID, lifetime: float) -> tuple[str, bool | None]:
    """The kept reauthentication nonce hash, and whether it is younger than `lifetime` seconds
    (None when none was ever sent)."""
    cur = await conn.execute(
        "select reauthentication_token, reauthentication_sent_at + make_interval(secs => %s) > now()"
        " from auth.users where id = %s", [lifetime, user_id])
    row = await cur.fetchone()
    return (row[0], row[1]) if row is not None else ("", None)


async def clear_reauthentication_nonce(conn: AsyncConnection, user_id: uuid.UUID) -> None:
    await conn.execute("update auth.users set reauthentication_token = '', reauthentication_sent_at = null"
                       " where id = %s", [user_id])


async def spend_recovery_token(conn: AsyncConnection, user_id: uuid.UUID, hashes: list[str]) -> None:
    """The recovery code goes when it is one of `hashes` (the code just verified)."""
    await conn.execute("update auth.users set recovery_token = case when recovery_token = any(%s) then ''"
                       " else recovery_token end where id = %s", [hashes, user_id])


async def seconds_until_resend(conn: AsyncConnection, user_id: Any, sent_column: str, interval: float) -> int | None:
    """Seconds left (truncated) before `interval` seconds have passed since the send time in
    `sent_column`; None once they have."""
    cur = await conn.execute(
        sql.SQL("select floor(extract(epoch from {sent} + make_interval(secs => %s) - now())) from auth.users"
                " where id = %s and {sent} + make_interval(secs => %s) >= now()").format(
            sent=sql.Identifier(sent_column)),
        [interval, user_id, interval])
    row = await cur.fetchone()
    return int(row[0]) if row is not None else None


async def lock_for_update(conn: AsyncConnection, user_id: uuid.UUID) -> None:
    """The user's row locked for update (no other writer until the transaction ends)."""
    await conn.execute("select 1 from auth.users where id = %s for update", [user_id])


async def lock_by_email(conn: AsyncConnection, email: str, *, changing_to: bool = False) -> list[uuid.UUID]:
    """The users of this address (lower-case; as user_by_email finds them), or with `changing_to`
    those changing their address to it, locked in id order."""
    if changing_to:
        where = sql.SQL("lower(email_change) = %s")
        params: list[Any] = [email]
    else:
        where = sql.SQL("lower(email) = %s and aud = %s and not is_sso_user")
        params = [email, AUDIENCE]
    cur = await conn.execute(
        sql.SQL("select id from auth.users where {} order by id for no key update").format(where), params)
    return [row[0] for row in await cur.fetchall()]


async def set_password(conn: AsyncConnection, user_id: uuid.UUID, password_hash: str) -> None:
    await conn.execute("update auth.users set encrypted_password = %s, updated_at = now() where id = %s",
                       [password_hash, user_id])


async def update_user_metadata(conn: AsyncConnection, user_id: uuid.UUID, data: dict[str, Any]) -> None:
    """The user's metadata replaced by `data`, as an update of the user."""
    await conn.execute("update auth.users set raw_user_meta_data = %s, updated_at = now() where id = %s",
                       [Jsonb(data), user_id])


async def update_metadata_column(conn: AsyncConnection, user_id: uuid.UUID, column: str, data: dict[str, Any]) -> None:
    """raw_user_meta_data or raw_app_meta_data replaced by `data`."""
    await conn.execute(sql.SQL("update auth.users set {} = %s, updated_at = now() where id = %s").format(
        sql.Identifier(column)), [Jsonb(data), user_id])


async def mark_invited(conn: AsyncConnection, user_id: Any) -> None:
    await conn.execute("update auth.users set invited_at = now() where id = %s", [user_id])


async def set_email(conn: AsyncConnection, user_id: uuid.UUID, email: str) -> None:
    await conn.execute("update auth.users set email = %s, updated_at = now() where id = %s", [email, user_id])


async def set_email_change(conn: AsyncConnection, user_id: uuid.UUID, email: str) -> None:
    """The address the user is changing to."""
    await conn.execute("update auth.users set email_change = %s where id = %s", [email, user_id])


async def email_held(conn: AsyncConnection, email: str, *, besides: uuid.UUID) -> bool:
    """Another non-SSO user, of any audience, has this address (lower-case)."""
    cur = await conn.execute("select 1 from auth.users where lower(email) = %s and id <> %s and not is_sso_user",
                             [email, besides])
    return await cur.fetchone() is not None


async def apply_email_change(conn: AsyncConnection, user_id: uuid.UUID, email: str) -> None:
    """The new address, confirmed; the pending change gone; no longer anonymous; `email` among
    the providers; the metadata's address (when it has one) follows."""
    await conn.execute(
        "update auth.users set email = %s, email_change = '', email_change_token_new = '', email_change_sent_at = null,"
        " email_confirmed_at = coalesce(email_confirmed_at, now()), is_anonymous = false,"
        " raw_app_meta_data = coalesce(raw_app_meta_data, '{}'::jsonb) || jsonb_build_object('provider',"
        "   coalesce(raw_app_meta_data->>'provider', 'email'), 'providers', (select coalesce(jsonb_agg(distinct p), '[\"email\"]')"
        "   from jsonb_array_elements_text(coalesce(raw_app_meta_data->'providers', '[]') || '[\"email\"]') p)),"
        " updated_at = now() where id = %s", [email, user_id])


async def sync_metadata_email(conn: AsyncConnection, user_id: uuid.UUID, email: str) -> None:
    """The metadata's `email`, when it has one, becomes `email`."""
    await conn.execute("update auth.users set raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb)"
                       " || jsonb_build_object('email', %s::text) where id = %s and raw_user_meta_data ? 'email'",
                       [email, user_id])


async def phone_taken(conn: AsyncConnection, phone: str, *, besides: uuid.UUID) -> bool:
    """Another non-SSO user has this number."""
    cur = await conn.execute("select 1 from auth.users where phone = %s and id <> %s and not is_sso_user",
                             [phone, besides])
    return await cur.fetchone() is not None


async def set_phone_change(conn: AsyncConnection, user_id: uuid.UUID, phone: str) -> None:
    """The number the user is changing to."""
    await conn.execute("update auth.users set phone_change = %s where id = %s", [phone, user_id])


async def confirm_phone(conn: AsyncConnection, user_id: uuid.UUID) -> None:
    """The number confirmed now, its code spent."""
    await conn.execute("update auth.users set phone_confirmed_at = now(), confirmation_token = '', updated_at = now()"
                       " where id = %s", [user_id])


async def apply_phone_change(conn: AsyncConnection, user_id: uuid.UUID, phone: str) -> None:
    """The new number, confirmed; the pending change and its code gone."""
    await conn.execute(
        "update auth.users set phone = %s, phone_change = '', phone_change_token = '', phone_confirmed_at = now(),"
        " updated_at = now() where id = %s", [phone, user_id])


async def ban(conn: AsyncConnection, user_id: uuid.UUID, duration: Any) -> None:
    """Banned for `duration` from now (a zero or negative one lifts the ban)."""
    await conn.execute("update auth.users set banned_until = now() + %s, updated_at = now() where id = %s",
                       [duration, user_id])


async def set_role(conn: AsyncConnection, user_id: uuid.UUID, role: str) -> None:
    await conn.execute("update auth.users set role = %s, updated_at = now() where id = %s", [role, user_id])


async def soft_delete(conn: AsyncConnection, user_id: uuid.UUID) -> None:
    """The row kept, emptied of addresses, password and metadata, and marked deleted."""
    await conn.execute(
        "update auth.users set deleted_at = now(), email = null, phone = null, encrypted_password = '',"
        " raw_user_meta_data = '{}', raw_app_meta_data = '{}', updated_at = now() where id = %s", [user_id])


async def delete(conn: AsyncConnection, user_id: uuid.UUID) -> None:
    await conn.execute("delete from auth.users where id = %s", [user_id])


async def addresses_and_metadata(conn: AsyncConnection, user_id: Any) -> tuple[str | None, str | None, Any]:
    """The user's email, email_change and user metadata (empty when there is no such user)."""
    cur = await conn.execute("select email, email_change, raw_user_meta_data from auth.users where id = %s", [user_id])
    row = await cur.fetchone()
    return (row[0], row[1], row[2]) if row is not None else ("", "", {})


_MATCHING = sql.SQL("aud = %s and (email ilike %s or %s = '%%')")  # AUDIENCE, then the pattern twice


async def count_matching(conn: AsyncConnection, pattern: str) -> int:
    """The users of this audience whose address matches the ILIKE `pattern` ('%%': all of them)."""
    cur = await conn.execute(sql.SQL("select count(*) from auth.users where {}").format(_MATCHING),
                             [AUDIENCE, pattern, pattern])
    row = await cur.fetchone()
    return int(row[0]) if row is not None else 0


async def page_matching(conn: AsyncConnection, pattern: str, limit: int, offset: int) -> list[UserRow]:
    """A page of those users, newest first."""
    where = sql.SQL("u.id in (select id from auth.users where {} order by created_at desc, id limit %s offset %s)").format(
        _MATCHING)
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(sql.SQL("{} order by u.created_at desc, u.id").format(USER_SELECT.format(where=where)),
                          [AUDIENCE, pattern, pattern, limit, offset])
        return cast("list[UserRow]", await cur.fetchall())

