"""GoTrue's error codes (internal/api/apierrors/errorcode.go): the `code` of every auth error.

auth-js and supabase-py branch on these strings, so each is spelled exactly as GoTrue spells it.
"""

from __future__ import annotations

# -- requests --------------------------------------------------------------------------------
# A field is missing, malformed or out of bounds (the catch-all for bad input).
VALIDATION_FAILED = "validation_failed"
# The body is not JSON, or not the JSON object the endpoint reads.
BAD_JSON = "bad_json"
# An endpoint that needs a Bearer token was called without one.
NO_AUTHORIZATION = "no_authorization"
# The Bearer token is malformed, badly signed or expired.
BAD_JWT = "bad_jwt"
# An admin endpoint was called without the service_role key.
NOT_ADMIN = "not_admin"
# The thing asked for does not exist (factor, identity, ...).
NOT_FOUND = "not_found"
# Something broke on our side, or the database is unavailable.
UNEXPECTED_FAILURE = "unexpected_failure"

# -- users -----------------------------------------------------------------------------------
USER_NOT_FOUND = "user_not_found"
# Sign-up with an e-mail that another user holds.
EMAIL_EXISTS = "email_exists"
USER_ALREADY_EXISTS = "user_already_exists"
# The user is banned until `banned_until`.
USER_BANNED = "user_banned"
# Wrong e-mail/password pair (never says which one).
INVALID_CREDENTIALS = "invalid_credentials"
EMAIL_NOT_CONFIRMED = "email_not_confirmed"
# The mailer refuses to send to this address (no SMTP outside a dev server).
EMAIL_ADDRESS_NOT_AUTHORIZED = "email_address_not_authorized"
# Phone sign-in and OTP by SMS are not offered.
PHONE_PROVIDER_DISABLED = "phone_provider_disabled"

# -- passwords -------------------------------------------------------------------------------
WEAK_PASSWORD = "weak_password"
# A password change to the password the user already has.
SAME_PASSWORD = "same_password"

# -- sessions and tokens ---------------------------------------------------------------------
SESSION_NOT_FOUND = "session_not_found"
# The session passed its time box or its inactivity timeout.
SESSION_EXPIRED = "session_expired"
# The user already holds the most sessions allowed (SUPALITE_AUTH_MAX_SESSIONS).
SESSION_LIMIT_REACHED = "session_limit_reached"
REFRESH_TOKEN_NOT_FOUND = "refresh_token_not_found"
# A refresh token used again after its reuse interval (possible theft: the session ends).
REFRESH_TOKEN_ALREADY_USED = "refresh_token_already_used"

# -- one-time codes and links ----------------------------------------------------------------
OTP_EXPIRED = "otp_expired"
# Sign-in by e-mail code or magic link for a new user while sign-ups are closed.
OTP_DISABLED = "otp_disabled"

# -- rate limits -----------------------------------------------------------------------------
OVER_REQUEST_RATE_LIMIT = "over_request_rate_limit"
OVER_EMAIL_SEND_RATE_LIMIT = "over_email_send_rate_limit"
