"""The settings that turn ways in off, answered with GoTrue's statuses and messages.

GOTRUE_DISABLE_SIGNUP refuses every new user (sign-up, anonymous sign-in, and an OTP or magic
link for an address without a confirmed account, which GoTrue signs up on the way); admins
still create users. GOTRUE_EXTERNAL_EMAIL_ENABLED=false refuses e-mail sign-ups, password
sign-ins with an e-mail, OTPs and recoveries. Anonymous sign-ins are off unless
GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED=true.
"""

from __future__ import annotations

from server.auth import error_codes as codes
from server.auth.errors import bad_request, unprocessable
from server.core.config import Settings

SIGNUP_DISABLED = "Signups not allowed for this instance"
EMAIL_LOGINS_DISABLED = "Email logins are disabled"


def require_signup(settings: Settings) -> None:
    """Signup / SignupAnonymously: first of all, before the body is read."""
    if settings.disable_signup:
        raise unprocessable(codes.SIGNUP_DISABLED, SIGNUP_DISABLED)


def require_anonymous(settings: Settings) -> None:
    """The /signup route, when the body has neither an email nor a phone."""
    if not settings.anonymous_users_enabled:
        raise unprocessable(codes.ANONYMOUS_PROVIDER_DISABLED, "Anonymous sign-ins are disabled")


def require_email_signup(settings: Settings) -> None:
    if not settings.email_enabled:
        raise bad_request(codes.EMAIL_PROVIDER_DISABLED, "Email signups are disabled")


def require_email_login(settings: Settings) -> None:
    """A password sign-in with an e-mail, and /otp and /magiclink (GoTrue's MagicLink)."""
    if not settings.email_enabled:
        raise unprocessable(codes.EMAIL_PROVIDER_DISABLED, EMAIL_LOGINS_DISABLED)


def require_email_provider(settings: Settings) -> None:
    """The requireEmailProvider middleware of /recover: a 400, unlike the handlers' 422."""
    if not settings.email_enabled:
        raise bad_request(codes.EMAIL_PROVIDER_DISABLED, EMAIL_LOGINS_DISABLED)
