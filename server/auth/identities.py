"""External identities: what a provider says about a user, and the users it signs in or links.

GoTrue's createAccountFromExternalIdentity, DetermineAccountLinking (models/linking.go),
linkIdentityToUser and DeleteIdentity, over auth.users and auth.identities: an identity is
(provider, provider_id = the provider's `sub`) with the provider's claims as identity_data;
app_metadata.providers lists the user's identity providers in the order they were added and
app_metadata.provider is the first of them.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg import AsyncConnection
from psycopg.types.json import Jsonb
from starlette.requests import Request

from server.auth import email_confirmation, gates, mail
from server.auth import error_codes as codes
from server.auth.errors import bad_request, forbidden, internal, unprocessable
from server.auth.models.users import AUDIENCE, DUPLICATE_EMAIL, UserRow, confirm_email, create_user, written_user
from server.auth.service import AuthService
from server.auth.session_tokens import CommitThen

# GoTrue's provider.Claims, in its field order: the claim, and its Go type. structs.Map keeps a
# field when it is not the zero value, except email_verified and phone_verified (always there).
_CLAIMS: tuple[tuple[str, type], ...] = (
    ("iss", str), ("sub", str), ("aud", str), ("iat", float), ("exp", float), ("name", str), ("family_name", str),
    ("given_name", str), ("middle_name", str), ("nickname", str), ("preferred_username", str), ("profile", str),
    ("picture", str), ("website", str), ("gender", str), ("birthdate", str), ("zoneinfo", str), ("locale", str),
    ("updated_at", str), ("email", str), ("email_verified", bool), ("phone", str), ("phone_verified", bool),
    ("custom_claims", dict), ("full_name", str), ("avatar_url", str), ("slug", str), ("provider_id", str),
    ("user_name", str),
)
_ALWAYS = ("email_verified", "phone_verified")
MULTIPLE_ACCOUNTS = "Multiple accounts with the same email address in the same linking domain detected: default"


@dataclass
class Email:
    email: str
    verified: bool
    primary: bool


@dataclass
class UserData:
    """GoTrue's provider.UserProvidedData: the provider's e-mails and claims."""

    emails: list[Email]
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def subject(self) -> str:
        return str(self.metadata.get("sub") or "")

    def settle_email(self) -> None:
        """The identity's email is the primary one, else the last listed (the callback's loop)."""
        self.metadata["email_verified"] = False
        for email in self.emails:
            self.metadata["email"], self.metadata["email_verified"] = email.email, email.verified
            if email.primary:
                break
        self.metadata = claims_map(self.metadata)


def claims_map(source: dict[str, Any]) -> dict[str, Any]:
    """`source` as GoTrue's structs.Map(provider.Claims) has it: known claims of the right type."""
    out: dict[str, Any] = {}
    for name, kind in _CLAIMS:
        value = source.get(name)
        # Go decodes a JSON number into a float64 field, never a boolean.
        ok = isinstance(value, int | float) and not isinstance(value, bool) if kind is float else isinstance(value, kind)
        if name in _ALWAYS:
            out[name] = bool(value) if ok else False
        elif ok and value:
            out[name] = value
    return out


def from_claims(claims: dict[str, Any]) -> UserData:
    """parseGenericIDToken: the claims of an ID token (or of a userinfo answer)."""
    data = UserData([], claims_map(claims))
    email = data.metadata.get("email")
    if email:
        data.emails.append(Email(email, bool(data.metadata.get("email_verified")), True))
    return data


def from_keycloak_userinfo(info: dict[str, Any], host: str) -> UserData:
    """Keycloak's GetUserData: name, sub, email and email_verified of its userinfo."""
    def text(key: str) -> str:
        value = info.get(key)
        return value if isinstance(value, str) else ""

    verified = info.get("email_verified") is True
    data = UserData([Email(text("email"), verified, True)] if text("email") else [], claims_map({
        "iss": host, "sub": text("sub"), "name": text("name"), "email": text("email"), "email_verified": verified,
        "full_name": text("name"), "provider_id": text("sub")}))
    return data


# -- users and identities ---------------------------------------------------------------------

async def create_identity(conn: AsyncConnection, user_id: uuid.UUID, provider: str,
                          identity_data: dict[str, Any]) -> uuid.UUID:
    try:
        async with conn.transaction():
            cur = await conn.execute(
                "insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at,"
                " created_at, updated_at) values (%s, %s, %s, %s, now(), now(), now()) returning id",
                [str(identity_data.get("sub", "")), user_id, Jsonb(identity_data), provider])
            row = await cur.fetchone()
    except psycopg.IntegrityError:
        raise internal("Error creating identity") from None
    assert row is not None
    return uuid.UUID(str(row[0]))


async def identity_by_subject(conn: AsyncConnection, provider: str, sub: str) -> tuple[uuid.UUID, uuid.UUID] | None:
    """(identity id, user id) of the identity (provider, sub)."""
    cur = await conn.execute("select id, user_id from auth.identities where provider_id = %s and provider = %s",
                             [sub, provider])
    row = await cur.fetchone()
    return (row[0], row[1]) if row else None


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
    await conn.execute("update auth.users set raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb) || %s,"
                       " updated_at = now() where id = %s", [Jsonb(data), user_id])


async def _remove_unconfirmed_identities(conn: AsyncConnection, user_id: uuid.UUID, identity_id: uuid.UUID,
                                         provider: str, identity_data: dict[str, Any]) -> None:
    """RemoveUnconfirmedIdentities: an unconfirmed user keeps only the identity signing in now,
    so a stranger's earlier unconfirmed sign-up with this address cannot open the account."""
    if provider not in ("email", "phone"):
        await conn.execute("update auth.users set encrypted_password = null where id = %s", [user_id])
    await conn.execute("update auth.users set raw_user_meta_data = %s where id = %s", [Jsonb(identity_data), user_id])
    await conn.execute("delete from auth.identities where user_id = %s and id <> %s", [user_id, identity_id])
    await update_providers(conn, user_id)


@dataclass
class Decision:
    kind: str  # "exists", "create", "link", "multiple"
    user_id: uuid.UUID | None
    identity_id: uuid.UUID | None
    candidate: Email


async def decide(svc: AuthService, conn: AsyncConnection, data: UserData, provider: str) -> Decision:
    """DetermineAccountLinking, with every provider in the default linking domain.

    Only the addresses the provider says are verified link to an existing account. GoTrue
    counts every address as verified when GOTRUE_MAILER_AUTOCONFIRM is on, so anyone able to
    get an ID token saying `email_verified: false` for another person's address (any generic
    OIDC provider lets its users type one) signs in as that person; here such an identity
    gets a new account without the taken address (or the sign-in is refused below)."""
    verified = [e.email.lower() for e in data.emails if e.verified]
    candidate = Email("", False, False)
    for email in data.emails:
        if email.primary:
            candidate = Email(email.email.lower(), email.verified, True)
    found = await identity_by_subject(conn, provider, data.subject)
    if found is not None:
        return Decision("exists", found[1], found[0], candidate)
    if not verified:
        # An unverified address another account holds is not given to the new one.
        if candidate.email and await _email_taken(conn, candidate.email):
            candidate.email = ""
        return Decision("create", None, None, candidate)
    cur = await conn.execute("select distinct user_id from auth.identities where email = any(%s)"
                             " and provider not like 'sso:%%'", [verified])
    linking_users = [row[0] for row in await cur.fetchall()]
    if not linking_users:
        cur = await conn.execute("select id from auth.users where lower(email) = any(%s) and not is_sso_user", [verified])
        similar = [row[0] for row in await cur.fetchall()]
        if len(similar) == 1:
            return Decision("link", similar[0], None, candidate)
        return Decision("multiple" if similar else "create", None, None, candidate)
    if len(linking_users) > 1:
        return Decision("multiple", None, None, candidate)
    return Decision("link", linking_users[0], None, candidate)


async def _email_taken(conn: AsyncConnection, email: str) -> bool:
    cur = await conn.execute(
        "select 1 from auth.users where lower(email) = %s and aud = %s and not is_sso_user"
        " union all select 1 from auth.identities where email = %s and provider not like 'sso:%%' limit 1",
        [email, AUDIENCE, email])
    return await cur.fetchone() is not None


async def sign_in(svc: AuthService, conn: AsyncConnection, request: Request, data: UserData,
                  provider: str) -> UserRow:
    """createAccountFromExternalIdentity: the user this external identity signs in, created or
    linked by e-mail as GoTrue decides; refused when banned or (unverified) unconfirmed."""
    settings = svc.ctx.settings
    decision = await decide(svc, conn, data, provider)
    identity_data = data.metadata
    if decision.kind == "multiple":
        raise internal(MULTIPLE_ACCOUNTS)
    if decision.kind == "create":
        gates.require_signup(settings)
        # signupNewUser: no password, the claims as user_metadata, the identity made below.
        user_id = await create_user(conn, email=decision.candidate.email or None, password_hash=None,
                                    user_meta=identity_data, app_meta={"provider": provider, "providers": [provider]},
                                    email_identity=False)
        identity_id = await create_identity(conn, user_id, provider, identity_data)
    else:
        assert decision.user_id is not None
        user_id = decision.user_id
        if decision.kind == "link":
            identity_id = await create_identity(conn, user_id, provider, identity_data)
        else:
            assert decision.identity_id is not None
            identity_id = decision.identity_id
            await conn.execute("update auth.identities set identity_data = %s, last_sign_in_at = now(),"
                               " updated_at = now() where id = %s", [Jsonb(identity_data), identity_id])
        await merge_user_metadata(conn, user_id, identity_data)
        await update_providers(conn, user_id)
    user = await written_user(conn, user_id)
    if user["is_banned"]:
        raise forbidden(codes.USER_BANNED, "User is banned")
    if user["email_confirmed_at"] is None:
        await _remove_unconfirmed_identities(conn, user_id, identity_id, provider, identity_data)
        if decision.candidate.verified or settings.mailer_autoconfirm:
            await confirm_email(conn, user_id)
        else:
            sent = ""
            if decision.candidate.email:
                await _send_confirmation(svc, conn, request, user_id, decision.candidate.email)
                sent = f"A confirmation email has been sent to your {provider} email"
            raise CommitThen(unprocessable(
                codes.PROVIDER_EMAIL_NEEDS_VERIFICATION,
                f"Unverified email with {provider}. " + (sent or f"Verify the email with {provider} in order to sign in")))
    return await written_user(conn, user_id)


async def _send_confirmation(svc: AuthService, conn: AsyncConnection, request: Request, user_id: uuid.UUID,
                             email: str) -> None:
    await email_confirmation.send(svc, conn, user_id, email, mail.redirect_target(svc.ctx, None))


async def link(svc: AuthService, conn: AsyncConnection, request: Request, target_id: uuid.UUID, data: UserData,
               provider: str) -> UserRow:
    """linkIdentityToUser: the identity added to the signed-in user (manual linking)."""
    found = await identity_by_subject(conn, provider, data.subject)
    if found is not None:
        message = "Identity is already linked" if found[1] == target_id else "Identity is already linked to another user"
        raise unprocessable(codes.IDENTITY_ALREADY_EXISTS, message)
    await create_identity(conn, target_id, provider, data.metadata)
    target = await written_user(conn, target_id)
    if not target["email"]:
        if not await update_email_from_identities(svc, conn, target):
            raise bad_request(codes.EMAIL_EXISTS, DUPLICATE_EMAIL)
        if not data.metadata.get("email_verified"):
            email = (await written_user(conn, target_id))["email"]
            if email:
                await _send_confirmation(svc, conn, request, target_id, email)
            raise CommitThen(unprocessable(codes.EMAIL_NOT_CONFIRMED, f"Unverified email with {provider}."
                                           f" A confirmation email has been sent to your {provider} email"))
        await confirm_email(conn, target_id)
        await conn.execute("update auth.users set is_anonymous = false where id = %s", [target_id])
    await update_providers(conn, target_id)
    return await written_user(conn, target_id)


async def update_email_from_identities(svc: AuthService, conn: AsyncConnection, user: UserRow) -> bool:
    """UpdateUserEmailFromIdentities: the user's e-mail becomes one of its identities' (verified
    ones first) that no other user holds; False when every candidate is taken."""
    cur = await conn.execute(
        "select coalesce(email, ''), coalesce((identity_data->>'email_verified')::boolean, false)"
        " from auth.identities where user_id = %s"
        " order by case when coalesce(email, '') = '' then 2"
        "   when coalesce((identity_data->>'email_verified')::boolean, false) then 0 else 1 end, created_at, id",
        [user["id"]])
    identities = await cur.fetchall()
    current = (user["email"] or "").lower()
    if any(email == current for email, _ in identities):
        return True
    for email, verified in identities:
        taken = await conn.execute("select 1 from auth.users where lower(email) = %s and aud = %s and not is_sso_user"
                                   " and id <> %s", [email, AUDIENCE, user["id"]])
        if email and await taken.fetchone() is not None:
            continue
        await conn.execute(
            "update auth.users set email = nullif(%s, ''), confirmation_token = '', confirmation_sent_at = null,"
            " recovery_token = '', recovery_sent_at = null, email_change = '', email_change_token_current = '',"
            " email_change_token_new = '', email_change_sent_at = null, email_change_confirm_status = 0,"
            " phone_change = '', phone_change_token = '', phone_change_sent_at = null, reauthentication_token = '',"
            " reauthentication_sent_at = null, updated_at = now() where id = %s", [email, user["id"]])
        await conn.execute("delete from auth.one_time_tokens where user_id = %s", [user["id"]])
        if not email or (not verified and not svc.ctx.settings.mailer_autoconfirm):
            await conn.execute(
                "update auth.users set email_confirmed_at = null, raw_user_meta_data = coalesce(raw_user_meta_data,"
                " '{}'::jsonb) || '{\"email_verified\": false}'::jsonb where id = %s", [user["id"]])
        return True
    return False


async def unlink(svc: AuthService, conn: AsyncConnection, user: UserRow, identity_id: uuid.UUID) -> None:
    """DeleteIdentity: the identity removed; the user's e-mail (or phone) and providers follow."""
    if len(user["identities"]) <= 1:
        raise unprocessable(codes.SINGLE_IDENTITY_NOT_DELETABLE, "User must have at least 1 identity after unlinking")
    target = next((i for i in user["identities"] if str(i.get("identity_id")) == str(identity_id)), None)
    if target is None:
        raise unprocessable(codes.IDENTITY_NOT_FOUND, "Identity doesn't exist")
    await conn.execute("delete from auth.identities where id = %s and user_id = %s", [identity_id, user["id"]])
    if target.get("provider") == "phone":
        await conn.execute("update auth.users set phone = null, phone_confirmed_at = null, updated_at = now()"
                           " where id = %s", [user["id"]])
    elif not await update_email_from_identities(svc, conn, user):
        raise unprocessable(codes.EMAIL_CONFLICT_IDENTITY_NOT_DELETABLE, "Unable to unlink identity due to email conflict")
    await update_providers(conn, user["id"])

