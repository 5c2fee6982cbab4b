"""One Settings object, read from the environment (and a `.env` file in the working dir).

Every setting has an environment variable; `supalite serve` flags override them. An
environment variable that starts with ``SUPALITE_`` but names no setting is refused, so a
typo never silently falls back to a default. The exception is ``SUPALITE_APP_<NAME>``:
app settings, set on the database as ``app.<name>`` by `supalite migrate` for the app's SQL.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
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


def _go_duration(value: str) -> float:
    """Go's time.ParseDuration ("720h", "1h30m", "90s", "0"), in seconds; negative refused."""
    text = value.strip()
    if text in ("", "0"):
        return 0.0
    if _DURATION_PART.sub("", text) or len(text) > 64:
        raise ValueError(f"not a duration: {value!r}")
    return sum(float(n) * _DURATION_UNITS[unit] for n, unit in _DURATION_PART.findall(text))


@dataclass(frozen=True)
class Setting:
    env: str
    default: str
    help: str


# name -> (environment variable, default as text, description). The README table is
# generated from this list (`supalite config`), so it stays the single source.
SETTINGS: dict[str, Setting] = {
    "database_url": Setting("DATABASE_URL", "", "PostgreSQL URL (owner role). Empty: embedded PostgreSQL in the data dir"),
    "data_dir": Setting("SUPALITE_DATA_DIR", ".data", "Embedded PostgreSQL cluster, stored objects, generated secrets"),
    "host": Setting("SUPALITE_HOST", "127.0.0.1", "Address the HTTP server binds"),
    "port": Setting("SUPALITE_PORT", "8000", "Port the HTTP server binds"),
    "workers": Setting("SUPALITE_WORKERS", "1", "Number of server worker processes"),
    "forwarded_allow_ips": Setting("SUPALITE_FORWARDED_ALLOW_IPS", "127.0.0.1", "Proxies trusted for X-Forwarded-For (comma separated, * for any)"),
    "dev": Setting("SUPALITE_DEV", "false", "Dev machine: allows the demo JWT secret on a non-loopback address"),
    "public_url": Setting("SUPALITE_PUBLIC_URL", "", "External URL of the API (links in mails). Default http://host:port"),
    "jwt_secret": Setting("SUPALITE_JWT_SECRET", DEMO_JWT_SECRET, "HS256 secret signing and verifying JWTs"),
    "jwt_expiry": Setting("SUPALITE_JWT_EXPIRY", "3600", "Access token lifetime in seconds"),
    "jwt_keys_file": Setting("SUPALITE_JWT_KEYS_FILE", "", "JWK set file with asymmetric signing keys (RS256/ES256)"),
    "anon_key": Setting("SUPALITE_ANON_KEY", "", "anon API key. Default: signed with the JWT secret"),
    "service_role_key": Setting("SUPALITE_SERVICE_ROLE_KEY", "", "service_role API key. Default: signed with the JWT secret"),
    "db_port": Setting("SUPALITE_DB_PORT", "54322", "Port of the embedded PostgreSQL (0: any free port)"),
    "db_pool_size": Setting("SUPALITE_DB_POOL_SIZE", "10", "API connections per worker"),
    "authenticator_password": Setting("SUPALITE_AUTHENTICATOR_PASSWORD", "", "Password of the authenticator role. Default: derived from the JWT secret"),
    "migrate_on_start": Setting("SUPALITE_MIGRATE_ON_START", "true", "Apply platform schema, migrations, policies, buckets at start"),
    "project_dir": Setting("SUPALITE_PROJECT_DIR", ".", "Folder holding migrations/, policies/, storage/ and web/dist"),
    "db_schemas": Setting("PGRST_DB_SCHEMAS", "public", "Schemas exposed by /rest/v1 (comma separated)"),
    "db_extra_search_path": Setting("PGRST_DB_EXTRA_SEARCH_PATH", "public,extensions", "Extra search_path for REST requests"),
    "db_max_rows": Setting("PGRST_DB_MAX_ROWS", "", "Upper bound on rows a REST read returns (empty: none)"),
    "db_aggregates_enabled": Setting("PGRST_DB_AGGREGATES_ENABLED", "true", "Allow count(), sum()... in REST select"),
    "db_plan_enabled": Setting("PGRST_DB_PLAN_ENABLED", "false", "Allow Accept: application/vnd.pgrst.plan (explain)"),
    "db_tx_end": Setting("PGRST_DB_TX_END", "commit-allow-override", "commit, commit-allow-override, rollback, rollback-allow-override"),
    "rest_max_body_bytes": Setting("SUPALITE_REST_MAX_BODY_BYTES", "10485760", "Largest /rest/v1 request body in bytes (10 MiB); larger: 413"),
    "site_url": Setting("GOTRUE_SITE_URL", "", "Where auth mails send users back to. Default: the public URL"),
    "mailer_autoconfirm": Setting("GOTRUE_MAILER_AUTOCONFIRM", "true", "Sign-ups are confirmed without a mail"),
    "max_sessions_per_user": Setting("SUPALITE_AUTH_MAX_SESSIONS", "0", "Live sessions a user may hold (0: unlimited)"),
    "sessions_timebox": Setting("SUPALITE_AUTH_SESSIONS_TIMEBOX", "0", "Sessions end this long after sign-in (Go duration, e.g. 720h; 0: never)"),
    "sessions_inactivity_timeout": Setting("SUPALITE_AUTH_SESSIONS_INACTIVITY_TIMEOUT", "0", "Sessions end after this long without a token refresh (Go duration, e.g. 168h; 0: never)"),
    "rate_limits_enabled": Setting("SUPALITE_RATE_LIMITS", "true", "Apply GoTrue-style rate limits"),
    "smtp_url": Setting("SUPALITE_SMTP_URL", "", "smtp://user:pass@host:port to send mail; empty: the dev inbox at /inbox on a dev server, no mail otherwise"),
    "storage_backend": Setting("STORAGE_BACKEND", "file", "file or s3"),
    "storage_s3_endpoint": Setting("STORAGE_S3_ENDPOINT", "", "S3/MinIO endpoint URL"),
    "storage_s3_bucket": Setting("STORAGE_S3_BUCKET", "supalite", "S3 bucket holding every object"),
    "storage_s3_access_key": Setting("STORAGE_S3_ACCESS_KEY", "", "S3 access key"),
    "storage_s3_secret_key": Setting("STORAGE_S3_SECRET_KEY", "", "S3 secret key"),
    "storage_s3_region": Setting("STORAGE_S3_REGION", "us-east-1", "S3 region"),
    "file_size_limit": Setting("SUPALITE_FILE_SIZE_LIMIT", "52428800", "Global upload size limit in bytes (50 MiB)"),
    "log_level": Setting("SUPALITE_LOG_LEVEL", "info", "Log level"),
}

_PARSERS: dict[str, Callable[[str], object]] = {
    "port": int, "workers": int, "dev": _bool, "jwt_expiry": int, "db_port": int,
    "db_pool_size": int, "migrate_on_start": _bool, "db_schemas": _csv,
    "db_extra_search_path": _csv, "db_aggregates_enabled": _bool, "db_plan_enabled": _bool,
    "mailer_autoconfirm": _bool, "max_sessions_per_user": int, "rate_limits_enabled": _bool,
    "file_size_limit": int, "rest_max_body_bytes": int,
    "sessions_timebox": _go_duration, "sessions_inactivity_timeout": _go_duration,
    "db_max_rows": lambda v: int(v) if v.strip() else None,
    "data_dir": lambda v: Path(v).expanduser().resolve(),
    "project_dir": lambda v: Path(v).expanduser().resolve(),
}


@dataclass(frozen=True)
class Settings:
    database_url: str = ""
    data_dir: Path = field(default_factory=lambda: Path(".data").resolve())
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    forwarded_allow_ips: str = "127.0.0.1"
    dev: bool = False
    public_url: str = ""
    jwt_secret: str = DEMO_JWT_SECRET
    jwt_expiry: int = 3600
    jwt_keys_file: str = ""
    anon_key: str = ""
    service_role_key: str = ""
    db_port: int = 54322
    db_pool_size: int = 10
    authenticator_password: str = ""
    migrate_on_start: bool = True
    project_dir: Path = field(default_factory=lambda: Path(".").resolve())
    db_schemas: tuple[str, ...] = ("public",)
    db_extra_search_path: tuple[str, ...] = ("public", "extensions")
    db_max_rows: int | None = None
    db_aggregates_enabled: bool = True
    db_plan_enabled: bool = False
    db_tx_end: str = "commit-allow-override"
    rest_max_body_bytes: int = 10485760
    site_url: str = ""
    mailer_autoconfirm: bool = True
    max_sessions_per_user: int = 0
    sessions_timebox: float = 0.0  # seconds; 0: off
    sessions_inactivity_timeout: float = 0.0  # seconds; 0: off
    rate_limits_enabled: bool = True
    smtp_url: str = ""
    storage_backend: str = "file"
    storage_s3_endpoint: str = ""
    storage_s3_bucket: str = "supalite"
    storage_s3_access_key: str = ""
    storage_s3_secret_key: str = ""
    storage_s3_region: str = "us-east-1"
    file_size_limit: int = 52428800
    log_level: str = "info"
    # SUPALITE_APP_<NAME> variables: database settings `app.<name>` the app's SQL reads.
    app_settings: dict[str, str] = field(default_factory=dict)

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


def read_dotenv(path: Path) -> dict[str, str]:
    """KEY=VALUE lines; blank lines and # comments ignored; optional quotes stripped."""
    values: dict[str, str] = {}
    if not path.is_file():
        return values
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        values[key.strip()] = value.strip().strip('"').strip("'")
    return values


def load_settings(environ: dict[str, str] | None = None, dotenv: Path | None = Path(".env")) -> Settings:
    """Build Settings from a .env file overlaid by the process environment."""
    env = dict(read_dotenv(dotenv)) if dotenv else {}
    env.update(os.environ if environ is None else environ)
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
    if values["db_tx_end"] not in ("commit", "commit-allow-override", "rollback", "rollback-allow-override"):
        raise ConfigError(f"invalid value {values['db_tx_end']!r} for PGRST_DB_TX_END")
    values["app_settings"] = app_settings(env)
    assert {f.name for f in fields(Settings)} == set(SETTINGS) | {"app_settings"}, "Settings and SETTINGS disagree"
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
