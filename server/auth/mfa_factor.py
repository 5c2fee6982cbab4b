"""MFA factors and their challenges (GoTrue's models/factor.go and challenge.go), and the
`FactorKind` each factor type implements.

Everything here runs inside the request's one transaction (server.auth.db.in_transaction).
Secrets and one-time codes are stored as GoTrue stores them without database encryption: a
TOTP factor's base32 secret in `secret`, a phone challenge's code in `otp_code`; both are
compared in constant time. Wrong answers to a challenge are counted (GoTrue counts none):
at the MAX_WRONG_CODES-th the challenge is gone (wrong_answer).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, NoReturn, Protocol

from psycopg import AsyncConnection
from starlette.requests import Request

from server.auth import error_codes as codes
from server.auth.errors import AuthError, forbidden, go_quote, not_found, unprocessable
from server.auth.http import Body, client_inet
from server.auth.models import mfa_challenges, mfa_factors, users
from server.auth.models.mfa_challenges import ChallengeRow
from server.auth.models.mfa_factors import FactorRow
from server.auth.models.users import UserRow
from server.auth.service import AuthService
from server.auth.session_tokens import CommitThen
from server.auth.wrong_codes import MAX_WRONG_CODES
from server.core.config import Settings

VERIFIED = "verified"
UNVERIFIED = "unverified"
# GoTrue's MFA.FactorExpiryDuration: an unverified factor never challenged goes after this.
FACTOR_EXPIRY_SECONDS = 300
# GoTrue's MFA.MaxVerifiedFactors (not a setting here).
MAX_VERIFIED_FACTORS = 10
# Bound on names stored in the unique (friendly_name, user_id) index: a btree entry holds
# at most about 2.7 kB, and a longer name would fail the insert.
MAX_FRIENDLY_NAME = 255
FACTOR_NOT_FOUND = "Factor not found"


@dataclass
class MfaCall:
    """One /factors request: the caller (user and session) and the open transaction."""

    svc: AuthService
    request: Request
    conn: AsyncConnection
    user: UserRow
    session_id: uuid.UUID | None
    session_aal: str

    @property
    def settings(self) -> Settings:
        return self.svc.ctx.settings


class FactorKind(Protocol):
    """What one factor type does at enroll, challenge and verify (GoTrue's per-type branches
    of EnrollFactor, ChallengeFactor and VerifyFactor). mfa.py does the rest: the caller,
    the factor's ownership, the settings gate, the session upgrade after a verify."""

    # The factor_type value, the name in GoTrue's messages ("TOTP"), the amr method a verify
    # adds to the session ("totp", "mfa/phone", "mfa/webauthn").
    name: ClassVar[str]
    label: ClassVar[str]
    amr_method: ClassVar[str]
    # The code of a verify refused while the type's verification is off (a challenge's is
    # mfa_<type>_verify_not_enabled; GoTrue answers a WebAuthn verify with the enroll code).
    verify_disabled_code: ClassVar[str]

    # The type's settings switches (GOTRUE_MFA_<TYPE>_ENROLL_ENABLED and _VERIFY_ENABLED).
    def enroll_enabled(self, settings: Settings) -> bool: ...

    def verify_enabled(self, settings: Settings) -> bool: ...

    async def enroll(self, call: MfaCall, body: Body) -> dict[str, Any]:
        """Create the factor (after check_new_factor) and answer GoTrue's enroll body."""
        ...

    async def challenge(self, call: MfaCall, factor: FactorRow, body: Callable[[], Body]) -> dict[str, Any]:
        """Create a challenge (insert_challenge) and answer GoTrue's challenge body.
        `body()` is the request's JSON object; it raises bad_json if the body is not one
        (GoTrue reads the body of some types' challenges only)."""
        ...

    async def verify(self, call: MfaCall, factor: FactorRow, challenge_id: uuid.UUID | None, body: Body) -> None:
        """Check the answer to challenge `challenge_id` (find_challenge), marking it used; a
        wrong answer goes through wrong_answer (counted, the challenge dies at the bound).
        mfa.py then verifies the factor and upgrades the session."""
        ...


def enroll_disabled(kind: FactorKind) -> AuthError:
    return unprocessable(f"mfa_{kind.name}_enroll_not_enabled", f"MFA enroll is disabled for {kind.label}")


def verify_disabled(kind: FactorKind, code: str) -> AuthError:
    return unprocessable(code, f"MFA verification is disabled for {kind.label}")


# -- factors -------------------------------------------------------------------------------


async def owned_factor(conn: AsyncConnection, user_id: uuid.UUID, factor_id: uuid.UUID) -> FactorRow:
    """The user's factor (FindOwnedFactorByID), locked; another user's factor is not found."""
    factor = await mfa_factors.owned(conn, user_id, factor_id)
    if factor is None:
        raise not_found(codes.MFA_FACTOR_NOT_FOUND, FACTOR_NOT_FOUND)
    return factor


def check_friendly_name(name: str) -> None:
    if len(name) > MAX_FRIENDLY_NAME:
        raise AuthError(400, codes.VALIDATION_FAILED, f"friendly_name must be at most {MAX_FRIENDLY_NAME} characters")


def name_conflict(name: str) -> AuthError:
    return unprocessable(codes.MFA_FACTOR_NAME_CONFLICT,
                         f"A factor with the friendly name {go_quote(name)} for this user already exists")


async def check_new_factor(call: MfaCall, friendly_name: str) -> None:
    """GoTrue's validateFactors, before a factor is created: expired unverified factors go;
    the name must be free (even the empty name, as upstream compares them); at most
    mfa_max_enrolled_factors factors; a user with a verified factor enrolls only at aal2."""
    check_friendly_name(friendly_name)
    await mfa_factors.delete_abandoned(call.conn, FACTOR_EXPIRY_SECONDS)
    # The user row is locked so that concurrent enrollments count each other.
    await users.lock(call.conn, call.user["id"])
    factors = await mfa_factors.of_user(call.conn, call.user["id"])
    if any((f["friendly_name"] or "") == friendly_name for f in factors):
        raise name_conflict(friendly_name)
    verified = sum(1 for f in factors if f["status"] == VERIFIED)
    if len(factors) >= call.settings.mfa_max_enrolled_factors or verified >= MAX_VERIFIED_FACTORS:
        raise unprocessable(codes.TOO_MANY_ENROLLED_MFA_FACTORS,
                            "Maximum number of verified factors reached, unenroll to continue")
    if verified > 0 and call.session_aal != "aal2":
        raise forbidden(codes.INSUFFICIENT_AAL, "AAL2 required to enroll a new factor")


async def insert_factor(call: MfaCall, *, factor_type: str, friendly_name: str, secret: str | None = None,
                        phone: str | None = None) -> FactorRow:
    return await mfa_factors.insert(call.conn, call.user["id"], factor_type=factor_type, friendly_name=friendly_name,
                                    secret=secret, phone=phone)


# -- challenges ----------------------------------------------------------------------------


def request_ip(request: Request) -> str:
    """The client's address as the challenge stores it (inet, never null: 0.0.0.0 when there
    is none)."""
    return client_inet(request) or "0.0.0.0"


async def insert_challenge(call: MfaCall, factor: FactorRow, *, otp_code: str | None = None,
                           web_authn_session_data: Any = None) -> dict[str, Any]:
    """A new challenge (WriteChallengeToDatabase): the factor's last_challenged_at moves;
    answers `{id, type, expires_at}`."""
    challenge_id = uuid.uuid4()
    expires_at = await mfa_challenges.insert(call.conn, challenge_id, factor["id"], request_ip(call.request), otp_code,
                                             web_authn_session_data, call.settings.mfa_challenge_expiry)
    return {"id": str(challenge_id), "type": factor["factor_type"], "expires_at": expires_at}


def challenge_id_of(body: Body) -> uuid.UUID | None:
    """The body's challenge_id (a Go uuid.UUID field: a string in UUID form, or absent)."""
    raw = body.data.get("challenge_id")
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise AuthError(400, codes.BAD_JSON, "Could not parse request body as JSON: json: cannot unmarshal "
                        f"{type(raw).__name__} into Go struct field VerifyFactorParams.challenge_id of type uuid.UUID")
    try:
        return uuid.UUID(raw)
    except ValueError:
        raise AuthError(400, codes.BAD_JSON,
                        f"Could not parse request body as JSON: uuid: incorrect UUID format in string {go_quote(raw)}") from None


async def find_challenge(call: MfaCall, factor: FactorRow, challenge_id: uuid.UUID | None) -> ChallengeRow:
    """GoTrue's validateChallenge: the factor's challenge, not yet used, from the same
    address, not expired (an expired one is deleted). The row is locked: two verifies of one
    challenge cannot both pass."""
    row = await mfa_challenges.of_factor(call.conn, challenge_id or uuid.UUID(int=0), factor["id"],
                                         call.settings.mfa_challenge_expiry)
    if row is None:
        raise unprocessable(codes.MFA_FACTOR_NOT_FOUND, "MFA factor with the provided challenge ID not found")
    if row["verified_at"] is not None or row["ip_address"] != request_ip(call.request):
        raise unprocessable(codes.MFA_IP_ADDRESS_MISMATCH, "Challenge and verify IP addresses mismatch.")
    if row["expired"]:
        await mfa_challenges.delete(call.conn, row["id"])
        raise CommitThen(unprocessable(
            codes.MFA_CHALLENGE_EXPIRED,
            f"MFA challenge {row['id']} has expired, verify against another challenge or create a new challenge."))
    return row


async def mark_challenge_verified(call: MfaCall, challenge: ChallengeRow) -> None:
    await mfa_challenges.verified(call.conn, challenge["id"])


async def wrong_answer(call: MfaCall, challenge: ChallengeRow, error: AuthError) -> NoReturn:
    """A wrong answer to the challenge (GoTrue counts none): at the MAX_WRONG_CODES-th the
    challenge is deleted, whatever the addresses, so that even the right answer then finds no
    challenge and a new one must be asked for. The count is committed, then `error` answered.
    The challenge's row is locked (find_challenge): answers to it are counted one at a time."""
    if await mfa_challenges.count_failure(call.conn, challenge["id"]) >= MAX_WRONG_CODES:
        await mfa_challenges.delete(call.conn, challenge["id"])
    raise CommitThen(error)
