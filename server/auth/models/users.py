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


async def set_confirmation_token(conn: AsyncConnection, user_id: Any, hashed: str) -> None:
    """The hash of the confirmation code just sent, and when it was sent."""
    await conn.execute("update auth.users set confirmation_token = %s, confirmation_sent_at = now() where id = %s",
                       [hashed, user_id])


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

