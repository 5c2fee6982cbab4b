"""One Settings object, read from the environment (and a `.env` file in the working dir).

Every setting has an environment variable; `supalite serve` flags override them. An
environment variable that starts with ``SUPALITE_`` but names no setting is refused, so a
typo never silently falls back to a default. The exception is ``SUPALITE_APP_<NAME>``:
app settings, set on the database as ``app.<name>`` by `supalite migrate` for the app's SQL.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

DEMO_JWT_SECRET = "super-secret-jwt-token-with-at-least-32-characters-long"
APP_SETTING_PREFIX = "SUPALITE_APP_"


class ConfigError(Exception):
    """Bad configuration: the message is one line meant for the person starting the server."""


def _bool(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(f"not a boolean: {value!r}")


def _csv(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())


_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)")
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_DURATION_MAX = (2**63 - 1) / 1e9  # seconds: 2562047h47m16.854775807s


def go_duration(value: str) -> float:
    """Go's time.ParseDuration ("720h", "1h30m", "90s", "0"), in seconds; negative refused."""
    text = value.strip()
    if text in ("", "0"):
        return 0.0
    if _DURATION_PART.sub("", text) or len(text) > 64:
        raise ValueError(f"not a duration: {value!r}")
    seconds = sum(float(n) * _DURATION_UNITS[unit] for n, unit in _DURATION_PART.findall(text))
    if seconds > _DURATION_MAX:  # Go refuses what an int64 of nanoseconds cannot hold
        raise ValueError(f"duration out of range: {value!r}")
    return seconds


_SIZE_UNITS = {"": 1, "b": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "kib": 1024, "mib": 1024**2, "gib": 1024**3}


def parse_size(value: int | str | None) -> int | None:
    """`52428800`, `"50MiB"`, `"10 MB"` -> bytes; None stays None."""
    if value is None or isinstance(value, int):
        return value
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", value)
    if not match or match.group(2).lower() not in _SIZE_UNITS:
        raise ValueError(f"not a size: {value!r}")
    return int(float(match.group(1)) * _SIZE_UNITS[match.group(2).lower()])


def _choice(value: str, allowed: tuple[str, ...]) -> str:
    chosen = value.strip().lower()
    if chosen not in allowed:
        raise ValueError(f"not one of {', '.join(allowed)}: {value!r}")
    return chosen


def _test_otp(value: str) -> dict[str, str]:
    """GOTRUE_SMS_TEST_OTP: `phone:otp` pairs, comma separated (envconfig's map form)."""
    found: dict[str, str] = {}
    for pair in _csv(value):
        phone, sep, otp = pair.partition(":")
        digits = phone.strip().removeprefix("+")
        if not sep or not digits.isdigit() or not otp.strip().isdigit():
            raise ValueError(f"not a phone:otp pair: {pair!r}")
        found[digits] = otp.strip()
    return found


def _otp_length(value: str) -> int:
    length = int(value)
    return length if 6 <= length <= 10 else 6  # GoTrue's ApplyDefaults


def _required_characters(value: str) -> tuple[str, ...]:
    """GoTrue's PasswordRequiredCharacters: sets separated by `:`, `\\:` is a colon in a set."""
    parts = value.split(":")
    for i in range(len(parts) - 1):
        if parts[i].endswith("\\"):
            parts[i] = parts[i][:-1] + ":" + parts[i + 1]
            parts[i + 1] = ""
    return tuple(part for part in parts if part)


@dataclass(frozen=True)
class OAuthProvider:
    """An external OAuth/OIDC provider (GoTrue's OAuthProviderConfiguration)."""

    name: str
    enabled: bool = False
    client_id: tuple[str, ...] = ()  # the first is used to sign in; all are accepted as id_token audiences
    secret: str = ""
    redirect_uri: str = ""
    url: str = ""  # the OIDC issuer (discovery at <url>/.well-known/openid-configuration)
    skip_nonce_check: bool = False


_PROVIDER_FIELD = re.compile(
    r"GOTRUE_EXTERNAL_([A-Z0-9_]+?)_(ENABLED|CLIENT_ID|SECRET|REDIRECT_URI|URL|SKIP_NONCE_CHECK|API_URL|EMAIL_OPTIONAL)")
_IGNORED_PROVIDER_FIELDS = ("api_url", "email_optional")  # GoTrue's, for providers that are not OIDC
# GOTRUE_EXTERNAL_* names that are not OAuth providers.
_NOT_PROVIDERS = ("EMAIL", "PHONE", "ANONYMOUS_USERS", "WEB3_SOLANA", "WEB3_ETHEREUM", "FLOW_STATE_EXPIRY",
                  "ALLOWED_ID_TOKEN_ISSUERS", "IOS_BUNDLE", "REDIRECT")


def auth_providers(env: dict[str, str]) -> dict[str, OAuthProvider]:
    """`GOTRUE_EXTERNAL_KEYCLOAK_CLIENT_ID=x` and its siblings -> {"keycloak": OAuthProvider(...)}."""
    found: dict[str, dict[str, object]] = {}
    for key, value in env.items():
        match = _PROVIDER_FIELD.fullmatch(key)
        if match is None or match[1] in _NOT_PROVIDERS:
            continue
        name, attribute = match[1].lower(), match[2].lower()
        if attribute in _IGNORED_PROVIDER_FIELDS:
            continue
        parsed: object = value.strip()
        if attribute in ("enabled", "skip_nonce_check"):
            try:
                parsed = _bool(value)
            except ValueError:
                raise ConfigError(f"invalid value {value!r} for {key}") from None
        elif attribute == "client_id":
            parsed = _csv(value)
        found.setdefault(name, {"name": name})[attribute] = parsed
    return {name: OAuthProvider(**values) for name, values in sorted(found.items())}  # type: ignore[arg-type]


@dataclass(frozen=True)
class Setting:
    env: str
    default: str
    help: str


def setting(env: str, text: str, help: str, parse: Callable[[str], Any] = str, *, value: Any = MISSING,
            factory: Callable[[], Any] | None = None) -> Any:
    """A Settings field read from `env`, `text` when unset. Settings() without the environment holds
    `parse(text)`, or `value` / `factory()` where that differs (a default load_settings decides)."""
    metadata = {"setting": Setting(env, text, help), "parse": parse}
    if factory is not None:
        return field(default_factory=factory, metadata=metadata)
    if value is not MISSING:
        return field(default=value, metadata=metadata)
    return field(default_factory=lambda: parse(text), metadata=metadata)


@dataclass(frozen=True)
class Settings:
    """Every setting, declared once: its field here names its environment variable, its default as
    text (what `supalite config` and docs/configuration.md show), what it does and how its text
    is read (`setting`). SETTINGS and the parsers below are read off these fields."""

    database_url: str = setting("DATABASE_URL", "", "PostgreSQL URL (owner role). Empty: embedded PostgreSQL in the data dir")
    data_dir: Path = setting("SUPALITE_DATA_DIR", ".data", "Embedded PostgreSQL cluster, stored objects, generated secrets", lambda v: Path(v).expanduser().resolve())
    host: str = setting("SUPALITE_HOST", "127.0.0.1", "Address the HTTP server binds")
    port: int = setting("SUPALITE_PORT", "8000", "Port the HTTP server binds", int)
    workers: int = setting("SUPALITE_WORKERS", "1", "Number of server worker processes", int)
    forwarded_allow_ips: str = setting("SUPALITE_FORWARDED_ALLOW_IPS", "127.0.0.1", "Proxies trusted for X-Forwarded-For (comma separated, * for any)")
    dev: bool = setting("SUPALITE_DEV", "false", "Dev machine: allows the demo JWT secret on a non-loopback address", _bool)
    public_url: str = setting("SUPALITE_PUBLIC_URL", "", "External URL of the API (links in mails). Default http://host:port")
    jwt_secret: str = setting("SUPALITE_JWT_SECRET", DEMO_JWT_SECRET, "HS256 secret signing and verifying JWTs")
    jwt_expiry: int = setting("SUPALITE_JWT_EXPIRY", "3600", "Access token lifetime in seconds", int)
    jwt_keys_file: str = setting("SUPALITE_JWT_KEYS_FILE", "", "JWK set file with asymmetric signing keys (RS256/ES256)")
    anon_key: str = setting("SUPALITE_ANON_KEY", "", "anon API key. Default: signed with the JWT secret")
    service_role_key: str = setting("SUPALITE_SERVICE_ROLE_KEY", "", "service_role API key. Default: signed with the JWT secret")
    db_port: int = setting("SUPALITE_DB_PORT", "54322", "Port of the embedded PostgreSQL (0: any free port)", int)
    db_pool_size: int = setting("SUPALITE_DB_POOL_SIZE", "10", "API connections per worker", int)
    rest_lane: bool = setting("SUPALITE_REST_LANE", "on", "on: /rest/v1 requests are answered from the HTTP parser (the REST lane, no ASGI scope); off: through the ASGI app like every other request, so ASGI middleware sees them (slower)", _bool)
    db_pool_reserve: int = setting("SUPALITE_DB_POOL_RESERVE", "2", "Of the API connections, those kept for quick requests: a kind of REST request that held its connection past SUPALITE_DB_POOL_SLOW_MS in the last minute waits for the others (at most the pool size - 1; 0: none kept)", lambda v: max(int(v), 0))
    db_pool_slow_ms: int = setting("SUPALITE_DB_POOL_SLOW_MS", "250", "A REST request holding its connection longer than this (ms) makes its kind slow for a minute (see SUPALITE_DB_POOL_RESERVE)", lambda v: max(int(v), 1))
    db_direct_url: str = setting("SUPALITE_DB_DIRECT_URL", "", "PostgreSQL URL (owner role) for what needs a session: LISTEN, migrations and their lock. Set it when DATABASE_URL is a transaction-mode pooler. Empty: DATABASE_URL")
    authenticator_password: str = setting("SUPALITE_AUTHENTICATOR_PASSWORD", "", "Password of the authenticator role. Default: derived from the JWT secret")
    migrate_on_start: bool = setting("SUPALITE_MIGRATE_ON_START", "true", "Apply platform schema, migrations, policies, buckets at start", _bool)
    project_dir: Path = setting("SUPALITE_PROJECT_DIR", ".", "Folder holding migrations/, policies/, storage/ and web/dist", lambda v: Path(v).expanduser().resolve())
    db_schemas: tuple[str, ...] = setting("PGRST_DB_SCHEMAS", "public", "Schemas exposed by /rest/v1 (comma separated)", _csv)
    db_extra_search_path: tuple[str, ...] = setting("PGRST_DB_EXTRA_SEARCH_PATH", "public,extensions", "Extra search_path for REST requests", _csv)
    db_max_rows: int | None = setting("PGRST_DB_MAX_ROWS", "", "Upper bound on rows a REST read returns (empty: none)", lambda v: int(v) if v.strip() else None)
    db_aggregates_enabled: bool = setting("PGRST_DB_AGGREGATES_ENABLED", "true", "Allow count(), sum()... in REST select", _bool)
    db_prepared_statements: bool = setting("PGRST_DB_PREPARED_STATEMENTS", "true", "Prepare REST statements once per connection; false behind a transaction-mode pooler older than PgBouncer 1.21", _bool)
    db_plan_enabled: bool = setting("PGRST_DB_PLAN_ENABLED", "false", "Allow Accept: application/vnd.pgrst.plan (explain)", _bool)
    db_tx_end: str = setting("PGRST_DB_TX_END", "commit-allow-override", "commit, commit-allow-override, rollback, rollback-allow-override")
    rest_max_body_bytes: int = setting("SUPALITE_REST_MAX_BODY_BYTES", "10485760", "Largest /rest/v1 request body in bytes (10 MiB); larger: 413", int)
    site_url: str = setting("GOTRUE_SITE_URL", "", "Where auth mails send users back to. Default: the public URL")
    mailer_autoconfirm: bool = setting("GOTRUE_MAILER_AUTOCONFIRM", "false", "Sign-ups are confirmed without a mail. Unset: true on a dev server (the demo JWT secret, or --dev), false otherwise (e-mail confirmations on, as hosted Supabase)", _bool, value=True)
    max_sessions_per_user: int = setting("SUPALITE_AUTH_MAX_SESSIONS", "0", "Live sessions a user may hold (0: unlimited)", int)
    sessions_timebox: float = setting("SUPALITE_AUTH_SESSIONS_TIMEBOX", "0", "Sessions end this long after sign-in (Go duration, e.g. 720h; 0: never)", go_duration)  # seconds; 0: off
    sessions_inactivity_timeout: float = setting("SUPALITE_AUTH_SESSIONS_INACTIVITY_TIMEOUT", "0", "Sessions end after this long without a token refresh (Go duration, e.g. 168h; 0: never)", go_duration)  # seconds; 0: off
    rate_limits_enabled: bool = setting("SUPALITE_RATE_LIMITS", "true", "Apply GoTrue-style rate limits", _bool)
    rate_limit_email_sent: int = setting("SUPALITE_AUTH_RATE_LIMIT_EMAIL_SENT", "30", "Auth mails sent per hour, whole server", int)  # per hour
    rate_limit_sms_sent: int = setting("SUPALITE_AUTH_RATE_LIMIT_SMS_SENT", "30", "Auth SMS sent per hour, whole server", int)  # per hour
    rate_limit_anonymous_users: int = setting("SUPALITE_AUTH_RATE_LIMIT_ANONYMOUS_USERS", "30", "Anonymous sign-ins per hour per client (as many at once)", int)  # per hour
    rate_limit_token_refresh: int = setting("SUPALITE_AUTH_RATE_LIMIT_TOKEN_REFRESH", "150", "POST /token per 5 minutes per client (30 at once, GoTrue's burst): refreshes and every sign-in grant", int)  # per 5 minutes
    rate_limit_sign_in_sign_ups: int = setting("SUPALITE_AUTH_RATE_LIMIT_SIGN_IN_SIGN_UPS", "30", "Per 5 minutes per client (30 at once, GoTrue's burst), for each of /signup, /otp, /magiclink, /recover, /resend, PUT /user and /authorize (counted apart)", int)  # per 5 minutes
    rate_limit_token_verifications: int = setting("SUPALITE_AUTH_RATE_LIMIT_TOKEN_VERIFICATIONS", "30", "/verify (codes and links) per 5 minutes per client (30 at once, GoTrue's burst)", int)  # per 5 minutes
    rate_limit_passkey: int = setting("GOTRUE_RATE_LIMIT_PASSKEY", "30", "Passkey sign-in options per 5 minutes per client", int)  # per 5 minutes
    rate_limit_oauth_client_register: int = setting("GOTRUE_RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER", "10", "OAuth dynamic client registrations per 5 minutes per client", int)  # per 5 minutes
    mfa_rate_limit_challenge_and_verify: int = setting("GOTRUE_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY", "15", "MFA challenges, and verifications apart, per minute per client", int)  # per minute
    rate_limit_header: str = setting("GOTRUE_RATE_LIMIT_HEADER", "", "Request header whose value keys the per-client limits (e.g. CF-Connecting-IP, set by your proxy). Empty: the client's address")
    rate_limit_by: str = setting("SUPALITE_AUTH_RATE_LIMIT_BY", "address", "address: per-client limits count every request (by the rate-limit header, else the client's address); header: only requests carrying GOTRUE_RATE_LIMIT_HEADER count, as GoTrue (none without it, as under `supabase start`)", lambda v: _choice(v, ("address", "header")))
    smtp_max_frequency: float = setting("GOTRUE_SMTP_MAX_FREQUENCY", "1m", "Least time between two auth mails of a kind to one user (Go duration)", go_duration)  # seconds
    sms_max_frequency: float = setting("GOTRUE_SMS_MAX_FREQUENCY", "1m", "Least time between two SMS codes of a kind to one user (Go duration)", go_duration)  # seconds
    mfa_phone_max_frequency: float = setting("GOTRUE_MFA_PHONE_MAX_FREQUENCY", "1m", "Least time between two phone-factor SMS codes to one user (Go duration)", go_duration)  # seconds
    disable_signup: bool = setting("GOTRUE_DISABLE_SIGNUP", "false", "Refuse new users (sign-up, OTP and OAuth creation); admins still create them", _bool)
    email_enabled: bool = setting("GOTRUE_EXTERNAL_EMAIL_ENABLED", "true", "Email sign-up and sign-in", _bool)
    anonymous_users_enabled: bool = setting("GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED", "false", "Anonymous sign-ins", _bool)
    phone_enabled: bool = setting("GOTRUE_EXTERNAL_PHONE_ENABLED", "false", "Phone sign-up and sign-in (SMS OTP)", _bool)
    sms_autoconfirm: bool = setting("GOTRUE_SMS_AUTOCONFIRM", "false", "Phone sign-ups are confirmed without an SMS", _bool)
    sms_provider: str = setting("GOTRUE_SMS_PROVIDER", "", "SMS sender: empty (dev inbox on a dev server) or hook (GOTRUE_HOOK_SEND_SMS_URI)")
    sms_test_otp: dict[str, str] = setting("GOTRUE_SMS_TEST_OTP", "", "Fixed OTPs for test numbers, e.g. 15555550100:123456,15555550101:654321; no SMS is sent to them", lambda v: _test_otp(v))  # phone (digits only) -> OTP
    sms_otp_exp: int = setting("GOTRUE_SMS_OTP_EXP", "60", "SMS OTP lifetime in seconds", int)
    sms_otp_length: int = setting("GOTRUE_SMS_OTP_LENGTH", "6", "SMS OTP digits (6 to 10)", lambda v: _otp_length(v))
    sms_template: str = setting("GOTRUE_SMS_TEMPLATE", "Your code is {{ .Code }}", "SMS text; {{ .Code }} is the OTP")
    hook_send_sms_uri: str = setting("GOTRUE_HOOK_SEND_SMS_URI", "", "Send SMS hook: an http(s) URL receiving {user, sms} (Standard Webhooks signed)")
    hook_send_sms_secrets: str = setting("GOTRUE_HOOK_SEND_SMS_SECRETS", "", "Send SMS hook secrets, v1,whsec_<base64>, several separated by a vertical bar")
    password_min_length: int = setting("GOTRUE_PASSWORD_MIN_LENGTH", "6", "Shortest password accepted (at least 6)", lambda v: max(int(v), 6))
    password_required_characters: tuple[str, ...] = setting("GOTRUE_PASSWORD_REQUIRED_CHARACTERS", "", "Character sets a password must each draw from, separated by : (\\: for a colon)", lambda v: _required_characters(v))
    secure_password_change: bool = setting("GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION", "false", "A password change needs a reauthentication nonce unless signed in within 24 hours", _bool)
    manual_linking_enabled: bool = setting("GOTRUE_SECURITY_MANUAL_LINKING_ENABLED", "false", "Users may link and unlink identities themselves", _bool)
    uri_allow_list: tuple[str, ...] = setting("GOTRUE_URI_ALLOW_LIST", "", "Redirect URLs allowed besides the site URL (comma separated, * and ** globs)", _csv)
    mfa_totp_enroll_enabled: bool = setting("GOTRUE_MFA_TOTP_ENROLL_ENABLED", "true", "Users may enroll TOTP factors", _bool)
    mfa_totp_verify_enabled: bool = setting("GOTRUE_MFA_TOTP_VERIFY_ENABLED", "true", "TOTP factors may be verified", _bool)
    mfa_phone_enroll_enabled: bool = setting("GOTRUE_MFA_PHONE_ENROLL_ENABLED", "false", "Users may enroll phone (SMS) factors", _bool)
    mfa_phone_verify_enabled: bool = setting("GOTRUE_MFA_PHONE_VERIFY_ENABLED", "false", "Phone factors may be verified", _bool)
    mfa_web_authn_enroll_enabled: bool = setting("GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED", "false", "Users may enroll WebAuthn factors", _bool)
    mfa_web_authn_verify_enabled: bool = setting("GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED", "false", "WebAuthn factors may be verified", _bool)
    mfa_max_enrolled_factors: int = setting("GOTRUE_MFA_MAX_ENROLLED_FACTORS", "10", "Factors a user may hold", int)
    mfa_challenge_expiry: float = setting("GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION", "300", "Seconds an MFA challenge stays valid (at least 300)", lambda v: max(float(v), 300.0))  # seconds
    mfa_phone_otp_length: int = setting("GOTRUE_MFA_PHONE_OTP_LENGTH", "6", "Phone-factor SMS code digits (6 to 10)", lambda v: _otp_length(v))
    mfa_phone_template: str = setting("GOTRUE_MFA_PHONE_TEMPLATE", "Your code is {{ .Code }}", "Phone-factor SMS text; {{ .Code }} is the code")
    webauthn_rp_id: str = setting("GOTRUE_WEBAUTHN_RP_ID", "", "WebAuthn relying-party id (a domain). Default: the site URL's host")
    webauthn_rp_display_name: str = setting("GOTRUE_WEBAUTHN_RP_DISPLAY_NAME", "", "WebAuthn relying-party name. Default: the relying-party id")
    webauthn_rp_origins: tuple[str, ...] = setting("GOTRUE_WEBAUTHN_RP_ORIGINS", "", "Origins WebAuthn ceremonies may come from (comma separated). Default: the site URL", _csv)
    passkey_enabled: bool = setting("GOTRUE_PASSKEY_ENABLED", "false", "Passkey sign-in and registration", _bool)
    passkey_max_per_user: int = setting("GOTRUE_PASSKEY_MAX_PASSKEYS_PER_USER", "10", "Passkeys a user may register", int)
    webauthn_challenge_expiry: float = setting("GOTRUE_WEBAUTHN_CHALLENGE_EXPIRY_DURATION", "5m", "Lifetime of a passkey registration or sign-in challenge (Go duration)", go_duration)  # seconds
    flow_state_expiry: float = setting("GOTRUE_EXTERNAL_FLOW_STATE_EXPIRY_DURATION", "300s", "PKCE and OAuth flow lifetime (Go duration, at least 300s)", lambda v: max(go_duration(v), 300.0))  # seconds
    allowed_id_token_issuers: tuple[str, ...] = setting("GOTRUE_EXTERNAL_ALLOWED_ID_TOKEN_ISSUERS", "", "Issuers whose ID tokens grant_type=id_token takes with the caller's own client_id (GoTrue's deprecated issuer form; comma separated)", _csv)
    ios_bundle_id: str = setting("GOTRUE_EXTERNAL_IOS_BUNDLE_ID", "", "An iOS app's bundle id, also accepted as the audience of Apple ID tokens")
    oauth_server_enabled: bool = setting("GOTRUE_OAUTH_SERVER_ENABLED", "false", "OAuth 2.1 server: /admin/oauth/clients", _bool)
    oauth_server_allow_dynamic_registration: bool = setting("GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION", "false", "OAuth 2.1 dynamic client registration: anyone may POST /oauth/clients/register (rate limited per client)", _bool)
    mail_templates_dir: Path = setting("SUPALITE_MAIL_TEMPLATES_DIR", "mail", "Auth mail templates: <type>.html (invite, confirmation, recovery, magic_link, email_change, reauthentication; Go templates over GoTrue's variables) and their subjects in subjects.toml. Relative: to the project dir. A type it lacks keeps GoTrue's mail", lambda v: Path(v).expanduser())  # relative: to project_dir
    mailer_subjects_invite: str = setting("GOTRUE_MAILER_SUBJECTS_INVITE", "", "Subject of the invite mail. Empty: the mail templates folder's, else GoTrue's")
    mailer_subjects_confirmation: str = setting("GOTRUE_MAILER_SUBJECTS_CONFIRMATION", "", "Subject of the confirmation mail. Empty: the mail templates folder's, else GoTrue's")
    mailer_subjects_recovery: str = setting("GOTRUE_MAILER_SUBJECTS_RECOVERY", "", "Subject of the recovery mail. Empty: the mail templates folder's, else GoTrue's")
    mailer_subjects_magic_link: str = setting("GOTRUE_MAILER_SUBJECTS_MAGIC_LINK", "", "Subject of the magic_link mail. Empty: the mail templates folder's, else GoTrue's")
    mailer_subjects_email_change: str = setting("GOTRUE_MAILER_SUBJECTS_EMAIL_CHANGE", "", "Subject of the email_change mail. Empty: the mail templates folder's, else GoTrue's")
    mailer_subjects_reauthentication: str = setting("GOTRUE_MAILER_SUBJECTS_REAUTHENTICATION", "", "Subject of the reauthentication mail. Empty: the mail templates folder's, else GoTrue's")
    mailer_templates_invite: str = setting("GOTRUE_MAILER_TEMPLATES_INVITE", "", "The invite mail's HTML template: an http(s) URL (fetched at start, as GoTrue) or a file (relative: to the project dir). Empty: the mail templates folder's, else GoTrue's")
    mailer_templates_confirmation: str = setting("GOTRUE_MAILER_TEMPLATES_CONFIRMATION", "", "The confirmation mail's HTML template: an http(s) URL (fetched at start, as GoTrue) or a file (relative: to the project dir). Empty: the mail templates folder's, else GoTrue's")
    mailer_templates_recovery: str = setting("GOTRUE_MAILER_TEMPLATES_RECOVERY", "", "The recovery mail's HTML template: an http(s) URL (fetched at start, as GoTrue) or a file (relative: to the project dir). Empty: the mail templates folder's, else GoTrue's")
    mailer_templates_magic_link: str = setting("GOTRUE_MAILER_TEMPLATES_MAGIC_LINK", "", "The magic_link mail's HTML template: an http(s) URL (fetched at start, as GoTrue) or a file (relative: to the project dir). Empty: the mail templates folder's, else GoTrue's")
    mailer_templates_email_change: str = setting("GOTRUE_MAILER_TEMPLATES_EMAIL_CHANGE", "", "The email_change mail's HTML template: an http(s) URL (fetched at start, as GoTrue) or a file (relative: to the project dir). Empty: the mail templates folder's, else GoTrue's")
    mailer_templates_reauthentication: str = setting("GOTRUE_MAILER_TEMPLATES_REAUTHENTICATION", "", "The reauthentication mail's HTML template: an http(s) URL (fetched at start, as GoTrue) or a file (relative: to the project dir). Empty: the mail templates folder's, else GoTrue's")
    smtp_url: str = setting("SUPALITE_SMTP_URL", "", "smtp://user:pass@host:port to send mail; empty: the dev inbox at /inbox on a dev server, no mail otherwise")
    storage_backend: str = setting("STORAGE_BACKEND", "file", "file or s3")
    storage_s3_endpoint: str = setting("STORAGE_S3_ENDPOINT", "", "S3/MinIO endpoint URL")
    storage_s3_bucket: str = setting("STORAGE_S3_BUCKET", "supalite", "S3 bucket holding every object")
    storage_s3_access_key: str = setting("STORAGE_S3_ACCESS_KEY", "", "S3 access key")
    storage_s3_secret_key: str = setting("STORAGE_S3_SECRET_KEY", "", "S3 secret key")
    storage_s3_region: str = setting("STORAGE_S3_REGION", "us-east-1", "S3 region")
    storage_file_etag_algorithm: str = setting("STORAGE_FILE_ETAG_ALGORITHM", "md5", "ETag of the file backend's objects: md5 (of the bytes) or mtime (modification time and size, no hashing)")
    file_size_limit: int = setting("SUPALITE_FILE_SIZE_LIMIT", "52428800", "Global upload size limit in bytes (50 MiB)", int)
    tus_url_expiry_ms: int = setting("TUS_URL_EXPIRY_MS", "3600000", "Resumable (TUS) uploads expire this long after creation, in milliseconds", int)
    tus_part_size: int = setting("TUS_PART_SIZE", "50", "Largest S3 part of a resumable upload, in MB (at least 5)", int)  # MB
    tus_max_uploads_per_caller: int = setting("TUS_MAX_UPLOADS_PER_CALLER", "100", "Resumable uploads one caller (a user, else a role and address; service_role is not bounded) may have in progress; more: 429 SlowDown (0: no bound)", lambda v: max(int(v), 0))
    storage_orphan_grace_ms: int = setting("STORAGE_ORPHAN_GRACE_MS", "86400000", "Stored bytes no object row points to (left by a process killed mid-upload) are removed once older than this, in milliseconds (a day; at least 1000)", lambda v: max(int(v), 1000))
    log_level: str = setting("SUPALITE_LOG_LEVEL", "info", "Log level")
    web_dist: Path | None = setting("SUPALITE_WEB_DIST", "", "The built web app served at /. Empty: web/dist in the project dir", lambda v: Path(v).expanduser().resolve() if v.strip() else None)  # None: <project_dir>/web/dist
    functions_dir: Path | None = setting("SUPALITE_FUNCTIONS_DIR", "", "Edge Functions, a folder each (<name>/index.ts). Empty: supabase/functions in the project dir", lambda v: Path(v).expanduser().resolve() if v.strip() else None)  # None: <project_dir>/supabase/functions
    functions_wall_clock: float = setting("SUPALITE_FUNCTIONS_WALL_CLOCK", "400", "Seconds an Edge Function invocation may run before 546 WORKER_LIMIT", float)  # seconds
    functions_memory_mb: int = setting("SUPALITE_FUNCTIONS_MEMORY_MB", "256", "Heap of an Edge Function's process, in MB (546 WORKER_LIMIT beyond)", int)
    functions_env_file: Path | None = setting("SUPALITE_FUNCTIONS_ENV_FILE", "", "A .env file every Edge Function reads, after supabase/functions/.env (functions serve --env-file)", lambda v: Path(v).expanduser().resolve() if v.strip() else None)
    functions_verify_jwt: bool = setting("SUPALITE_FUNCTIONS_VERIFY_JWT", "true", "false: no Edge Function verifies the caller's JWT (functions serve --no-verify-jwt)", _bool)
    # Realtime's tenant limits, under its names (config/runtime.exs, the tenants table's columns).
    realtime_max_channels_per_client: int = setting("TENANT_MAX_CHANNELS_PER_CLIENT", "100", "Channels one realtime connection may join; past it: ChannelRateLimitReached", int)
    realtime_max_joins_per_second: int = setting("TENANT_MAX_JOINS_PER_SECOND", "100", "Channel joins per second, all connections (60 s average, every process); past it the join is refused, its socket closed, new sockets get 429", int)
    realtime_max_events_per_second: int = setting("TENANT_MAX_EVENTS_PER_SECOND", "100", "Broadcast messages sent and delivered per second, all connections (60 s average, every process); past it channels receiving one are shut down", int)
    realtime_max_presence_events_per_second: int = setting("TENANT_MAX_PRESENCE_EVENTS_PER_SECOND", "1000", "Presence tracks, states and diffs per second, all connections (60 s average, every process); past it a track is refused and its channel shut down", int)
    realtime_max_concurrent_users: int = setting("TENANT_MAX_CONCURRENT_USERS", "200", "Realtime connections holding a channel, every process; past it new sockets get 429", int)
    realtime_max_payload_size_in_kb: int = setting("TENANT_MAX_PAYLOAD_SIZE_IN_KB", "3000", "Largest broadcast or presence track, in KB (1,000 bytes)", int)
    realtime_client_presence_max_calls: int = setting("CLIENT_PRESENCE_MAX_CALLS", "5", "Presence events one channel may send per window; past it the channel is shut down", int)
    realtime_client_presence_window_ms: int = setting("CLIENT_PRESENCE_WINDOW_MS", "30000", "That window, in milliseconds", int)
    # SUPALITE_APP_<NAME> variables: database settings `app.<name>` the app's SQL reads.
    app_settings: dict[str, str] = field(default_factory=dict)
    # GOTRUE_EXTERNAL_<NAME>_* variables: the external OAuth/OIDC providers, by lower-case name.
    auth_providers: dict[str, OAuthProvider] = field(default_factory=dict)

    @property
    def api_url(self) -> str:
        if self.public_url:
            return self.public_url.rstrip("/")
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::", "") else self.host
        return f"http://{host}:{self.port}"

    @property
    def uses_demo_secret(self) -> bool:
        return self.jwt_secret == DEMO_JWT_SECRET

    def with_overrides(self, **overrides: object) -> Settings:
        # Fields by name, as the settings table: replace() refuses an unknown one at run time.
        changes: dict[str, Any] = {k: v for k, v in overrides.items() if v is not None}
        return replace(self, **changes)


# name -> (environment variable, default as text, description), in declaration order: `supalite config`
# prints docs/configuration.md's tables from it.
SETTINGS: dict[str, Setting] = {f.name: f.metadata["setting"] for f in fields(Settings) if "setting" in f.metadata}
_PARSERS: dict[str, Callable[[str], object]] = {
    f.name: f.metadata["parse"] for f in fields(Settings) if "setting" in f.metadata
}


def read_dotenv(path: Path) -> dict[str, str]:
    """KEY=VALUE lines; blank lines and # comments ignored; optional quotes stripped."""
    values: dict[str, str] = {}
    if not path.is_file():
        return values
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"cannot read {path}: not UTF-8 text") from None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        values[key.strip()] = value.strip().strip('"').strip("'")
    return values


def settings_from_env(env: dict[str, str]) -> Settings:
    """Settings from their environment variables (unset ones take their defaults), checked;
    `server.provision.settings.load_settings` gathers the variables a command runs with."""
    known = {s.env for s in SETTINGS.values()}
    unknown = sorted(
        k for k in env
        if k.startswith("SUPALITE_") and k not in known and not k.startswith(("SUPALITE_INTERNAL_", APP_SETTING_PREFIX))
    )
    if unknown:
        raise ConfigError(f"unknown setting {unknown[0]} (see `supalite config` for the list)")
    values: dict[str, object] = {}
    for name, setting in SETTINGS.items():
        raw = env.get(setting.env)
        if raw is None:
            raw = setting.default
        parse = _PARSERS.get(name, str)
        try:
            values[name] = parse(raw)
        except ValueError:
            raise ConfigError(f"invalid value {raw!r} for {setting.env}") from None
    if values["storage_backend"] not in ("file", "s3"):
        raise ConfigError(f"STORAGE_BACKEND must be 'file' or 's3', not {values['storage_backend']!r}")
    # empty is md5, as upstream reads it (`... || 'md5'`)
    values["storage_file_etag_algorithm"] = values["storage_file_etag_algorithm"] or "md5"
    if values["storage_file_etag_algorithm"] not in ("md5", "mtime"):
        raise ConfigError("STORAGE_FILE_ETAG_ALGORITHM must be 'md5' or 'mtime', "
                          f"not {values['storage_file_etag_algorithm']!r}")
    if values["db_tx_end"] not in ("commit", "commit-allow-override", "rollback", "rollback-allow-override"):
        raise ConfigError(f"invalid value {values['db_tx_end']!r} for PGRST_DB_TX_END")
    if values["sms_provider"] not in ("", "hook"):
        raise ConfigError(f"GOTRUE_SMS_PROVIDER must be empty or 'hook', not {values['sms_provider']!r}")
    if values["sms_provider"] == "hook" and not values["hook_send_sms_uri"]:
        raise ConfigError("GOTRUE_SMS_PROVIDER=hook needs GOTRUE_HOOK_SEND_SMS_URI")
    if values["db_direct_url"] and not values["database_url"]:
        # Else the embedded cluster would be served while migrations and LISTEN went elsewhere.
        raise ConfigError("SUPALITE_DB_DIRECT_URL needs DATABASE_URL (the pooler in front of that PostgreSQL)")
    if env.get(SETTINGS["mailer_autoconfirm"].env) is None:
        # Hosted Supabase mails a confirmation; only a dev server signs up without one by default.
        values["mailer_autoconfirm"] = bool(values["dev"]) or values["jwt_secret"] == DEMO_JWT_SECRET
    values["app_settings"] = app_settings(env)
    values["auth_providers"] = auth_providers(env)
    return Settings(**values)  # type: ignore[arg-type]


def app_settings(env: dict[str, str]) -> dict[str, str]:
    """`SUPALITE_APP_CONTACT_ADMIN_EMAIL=x` -> {"contact_admin_email": "x"} (read as app.contact_admin_email)."""
    found: dict[str, str] = {}
    for key, value in env.items():
        if not key.startswith(APP_SETTING_PREFIX):
            continue
        name = key[len(APP_SETTING_PREFIX):].lower()
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
            raise ConfigError(f"invalid app setting name {key} (letters, digits and _ only)")
        found[name] = value
    return found


# Sections of `supalite config` and of docs/configuration.md's tables, by the service a setting tunes.
SECTIONS = ("Server and database", "REST (PostgREST)", "Auth (GoTrue)", "Storage", "Realtime")


def section_of(setting: Setting) -> str:
    env = setting.env
    if env.startswith(("PGRST_", "SUPALITE_REST_")):
        return "REST (PostgREST)"
    if env.startswith(("GOTRUE_", "SUPALITE_AUTH_")) or env in ("SUPALITE_RATE_LIMITS", "SUPALITE_SMTP_URL",
                                                                   "SUPALITE_MAIL_TEMPLATES_DIR"):
        return "Auth (GoTrue)"
    if env.startswith(("STORAGE_", "TUS_")) or env == "SUPALITE_FILE_SIZE_LIMIT":
        return "Storage"
    if env.startswith(("TENANT_MAX_", "CLIENT_PRESENCE_")):
        return "Realtime"
    return "Server and database"
