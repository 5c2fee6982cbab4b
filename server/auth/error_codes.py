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

# -- sign-up and providers -------------------------------------------------------------------
SIGNUP_DISABLED = "signup_disabled"
PHONE_EXISTS = "phone_exists"
PHONE_NOT_CONFIRMED = "phone_not_confirmed"
EMAIL_PROVIDER_DISABLED = "email_provider_disabled"
ANONYMOUS_PROVIDER_DISABLED = "anonymous_provider_disabled"
EMAIL_ADDRESS_INVALID = "email_address_invalid"
EMAIL_ADDRESS_NOT_PROVIDED = "email_address_not_provided"
INVITE_NOT_FOUND = "invite_not_found"
PROVIDER_DISABLED = "provider_disabled"
OVER_SMS_SEND_RATE_LIMIT = "over_sms_send_rate_limit"
SMS_SEND_FAILED = "sms_send_failed"
HOOK_TIMEOUT = "hook_timeout"
HOOK_TIMEOUT_AFTER_RETRY = "hook_timeout_after_retry"
HOOK_PAYLOAD_OVER_SIZE_LIMIT = "hook_payload_over_size_limit"
HOOK_PAYLOAD_INVALID_CONTENT_TYPE = "hook_payload_invalid_content_type"
CONFLICT = "conflict"

# -- reauthentication ------------------------------------------------------------------------
REAUTHENTICATION_NEEDED = "reauthentication_needed"
REAUTHENTICATION_NOT_VALID = "reauthentication_not_valid"

# -- PKCE and external providers -------------------------------------------------------------
FLOW_STATE_NOT_FOUND = "flow_state_not_found"
FLOW_STATE_EXPIRED = "flow_state_expired"
FLOW_STATE_ALREADY_USED = "flow_state_already_used"
BAD_CODE_VERIFIER = "bad_code_verifier"
BAD_OAUTH_STATE = "bad_oauth_state"
BAD_OAUTH_CALLBACK = "bad_oauth_callback"
OAUTH_PROVIDER_NOT_SUPPORTED = "oauth_provider_not_supported"
OAUTH_INVALID_STATE = "oauth_invalid_state"
OAUTH_CLIENT_STATE_NOT_FOUND = "oauth_client_state_not_found"
OAUTH_CLIENT_STATE_EXPIRED = "oauth_client_state_expired"
PROVIDER_EMAIL_NEEDS_VERIFICATION = "provider_email_needs_verification"
UNEXPECTED_AUDIENCE = "unexpected_audience"
IDENTITY_NOT_FOUND = "identity_not_found"
IDENTITY_ALREADY_EXISTS = "identity_already_exists"
SINGLE_IDENTITY_NOT_DELETABLE = "single_identity_not_deletable"
EMAIL_CONFLICT_IDENTITY_NOT_DELETABLE = "email_conflict_identity_not_deletable"
MANUAL_LINKING_DISABLED = "manual_linking_disabled"
WEB3_PROVIDER_DISABLED = "web3_provider_disabled"
WEB3_UNSUPPORTED_CHAIN = "web3_unsupported_chain"
SAML_PROVIDER_DISABLED = "saml_provider_disabled"
SSO_PROVIDER_NOT_FOUND = "sso_provider_not_found"
SSO_PROVIDER_DISABLED = "sso_provider_disabled"
USER_SSO_MANAGED = "user_sso_managed"

# -- multi-factor authentication -------------------------------------------------------------
TOO_MANY_ENROLLED_MFA_FACTORS = "too_many_enrolled_mfa_factors"
MFA_FACTOR_NAME_CONFLICT = "mfa_factor_name_conflict"
MFA_FACTOR_NOT_FOUND = "mfa_factor_not_found"
MFA_IP_ADDRESS_MISMATCH = "mfa_ip_address_mismatch"
MFA_CHALLENGE_EXPIRED = "mfa_challenge_expired"
MFA_VERIFICATION_FAILED = "mfa_verification_failed"
MFA_VERIFICATION_REJECTED = "mfa_verification_rejected"
MFA_VERIFIED_FACTOR_EXISTS = "mfa_verified_factor_exists"
INSUFFICIENT_AAL = "insufficient_aal"
MFA_PHONE_ENROLL_NOT_ENABLED = "mfa_phone_enroll_not_enabled"
MFA_PHONE_VERIFY_NOT_ENABLED = "mfa_phone_verify_not_enabled"
MFA_TOTP_ENROLL_NOT_ENABLED = "mfa_totp_enroll_not_enabled"
MFA_TOTP_VERIFY_NOT_ENABLED = "mfa_totp_verify_not_enabled"
MFA_WEBAUTHN_ENROLL_NOT_ENABLED = "mfa_webauthn_enroll_not_enabled"
MFA_WEBAUTHN_VERIFY_NOT_ENABLED = "mfa_webauthn_verify_not_enabled"

# -- passkeys and WebAuthn ceremonies --------------------------------------------------------
PASSKEY_DISABLED = "passkey_disabled"
TOO_MANY_PASSKEYS = "too_many_passkeys"
WEBAUTHN_CREDENTIAL_NOT_FOUND = "webauthn_credential_not_found"
WEBAUTHN_CHALLENGE_NOT_FOUND = "webauthn_challenge_not_found"
WEBAUTHN_CHALLENGE_EXPIRED = "webauthn_challenge_expired"
WEBAUTHN_VERIFICATION_FAILED = "webauthn_verification_failed"
WEBAUTHN_CREDENTIAL_EXISTS = "webauthn_credential_exists"

# -- OAuth 2.1 server ------------------------------------------------------------------------
# A feature switched off by a setting (the OAuth server).
FEATURE_DISABLED = "feature_disabled"
OAUTH_CLIENT_NOT_FOUND = "oauth_client_not_found"
OAUTH_AUTHORIZATION_NOT_FOUND = "oauth_authorization_not_found"
OAUTH_CONSENT_NOT_FOUND = "oauth_consent_not_found"
OAUTH_DYNAMIC_CLIENT_REGISTRATION_DISABLED = "oauth_dynamic_client_registration_disabled"
