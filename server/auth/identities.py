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

from psycopg import AsyncConnection
from starlette.requests import Request

from server.auth import email_confirmation, gates, mail
from server.auth import error_codes as codes
from server.auth.errors import bad_request, forbidden, internal, unprocessable
from server.auth.models import identities as identity_rows
from server.auth.models import one_time_tokens, users
from server.auth.models.users import DUPLICATE_EMAIL, UserRow, confirm_email, create_user, written_user
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

async def _remove_unconfirmed_identities(conn: AsyncConnection, user_id: uuid.UUID, identity_id: uuid.UUID,
                                         provider: str, identity_data: dict[str, Any]) -> None:
    """RemoveUnconfirmedIdentities: an unconfirmed user keeps only the identity signing in now,
    so a stranger's earlier unconfirmed sign-up with this address cannot open the account."""
    if provider not in ("email", "phone"):
        await users.forget_password(conn, user_id)
    await users.set_user_metadata(conn, user_id, identity_data)
    await identity_rows.delete_others(conn, user_id, identity_id)
    await users.update_providers(conn, user_id)


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
    found = await identity_rows.by_subject(conn, provider, data.subject)
    if found is not None:
        return Decision("exists", found[1], found[0], candidate)
    if not verified:
        # An unverified address another account holds is not given to the new one.
        if candidate.email and await _email_taken(conn, candidate.email):
            candidate.email = ""
        return Decision("create", None, None, candidate)
    linking_users = await identity_rows.users_with_emails(conn, verified)
    if not linking_users:
        similar = await users.ids_with_emails(conn, verified)
        if len(similar) == 1:
            return Decision("link", similar[0], None, candidate)
        return Decision("multiple" if similar else "create", None, None, candidate)
    if len(linking_users) > 1:
        return Decision("multiple", None, None, candidate)
    return Decision("link", linking_users[0], None, candidate)


async def _email_taken(conn: AsyncConnection, email: str) -> bool:
    return await users.email_taken(conn, email) or await identity_rows.email_held(conn, email)


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
        identity_id = await identity_rows.create(conn, user_id, provider, identity_data)
    else:
        assert decision.user_id is not None
        user_id = decision.user_id
        if decision.kind == "link":
            identity_id = await identity_rows.create(conn, user_id, provider, identity_data)
        else:
            assert decision.identity_id is not None
            identity_id = decision.identity_id
            await identity_rows.signed_in_with(conn, identity_id, identity_data)
        await users.merge_user_metadata(conn, user_id, identity_data)
        await users.update_providers(conn, user_id)
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
    found = await identity_rows.by_subject(conn, provider, data.subject)
    if found is not None:
        message = "Identity is already linked" if found[1] == target_id else "Identity is already linked to another user"
        raise unprocessable(codes.IDENTITY_ALREADY_EXISTS, message)
    await identity_rows.create(conn, target_id, provider, data.metadata)
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
        await users.make_permanent(conn, target_id)
    await users.update_providers(conn, target_id)
    return await written_user(conn, target_id)


async def update_email_from_identities(svc: AuthService, conn: AsyncConnection, user: UserRow) -> bool:
    """UpdateUserEmailFromIdentities: the user's e-mail becomes one of its identities' (verified
    ones first) that no other user holds; False when every candidate is taken."""
    identities = await identity_rows.emails_of_user(conn, user["id"])
    current = (user["email"] or "").lower()
    if any(email == current for email, _ in identities):
        return True
    for email, verified in identities:
        if email and await users.email_taken(conn, email, besides=user["id"]):
            continue
        await users.take_email(conn, user["id"], email)
        await one_time_tokens.delete_of_user(conn, user["id"])
        if not email or (not verified and not svc.ctx.settings.mailer_autoconfirm):
            await users.unconfirm_email(conn, user["id"])
        return True
    return False


async def unlink(svc: AuthService, conn: AsyncConnection, user: UserRow, identity_id: uuid.UUID) -> None:
    """DeleteIdentity: the identity removed; the user's e-mail (or phone) and providers follow."""
    if len(user["identities"]) <= 1:
        raise unprocessable(codes.SINGLE_IDENTITY_NOT_DELETABLE, "User must have at least 1 identity after unlinking")
    target = next((i for i in user["identities"] if str(i.get("identity_id")) == str(identity_id)), None)
    if target is None:
        raise unprocessable(codes.IDENTITY_NOT_FOUND, "Identity doesn't exist")
    await identity_rows.delete(conn, identity_id, user["id"])
    if target.get("provider") == "phone":
        await users.clear_phone(conn, user["id"])
    elif not await update_email_from_identities(svc, conn, user):
        raise unprocessable(codes.EMAIL_CONFLICT_IDENTITY_NOT_DELETABLE, "Unable to unlink identity due to email conflict")
    await users.update_providers(conn, user["id"])

