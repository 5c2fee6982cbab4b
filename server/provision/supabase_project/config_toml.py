"""`supabase/config.toml` read as the Supabase CLI reads it, turned into supalite settings.

As the CLI does: the `supabase init` template's values stand for every key the file omits;
a whole-string `"env(NAME)"` value is read from the environment or the project's .env files
(and stays as written when NAME is unset); `SUPABASE_<TABLE>_<KEY>` variables override keys
(viper's AutomaticEnv); values are weakly typed (`port = "54321"` is a port). Keys map to
supalite settings under their environment-variable names (`settings_env`), which
load_settings layers under the real environment. What supalite does not honour gets one
warning line; a key left at the template's value, or in a disabled section, asks for nothing.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from server.auth.mail_templates import TYPES as MAIL_TYPES
from server.core.config import ConfigError, go_duration, read_dotenv
from server.provision.supabase_project.layout import SupabaseProject, find_project


@dataclass(frozen=True)
class BucketConfig:
    """`[storage.buckets.<name>]`."""

    name: str
    public: bool = False
    file_size_limit: int | None = None  # bytes
    allowed_mime_types: list[str] | None = None
    objects_path: Path | None = None  # resolved against supabase/


@dataclass(frozen=True)
class ProjectConfig:
    project_id: str
    # Settings as environment-variable names (GOTRUE_SITE_URL, PGRST_DB_SCHEMAS, SUPALITE_PORT...):
    # load_settings layers them under the real environment.
    settings_env: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # one line per unsupported key
    buckets: list[BucketConfig] = field(default_factory=list)
    seed_enabled: bool = True
    seed_paths: list[str] = field(default_factory=lambda: ["./seed.sql"])  # globs, relative to supabase/
    migrations_enabled: bool = True
    major_version: int = 17
    api_port: int = 54321
    db_port: int = 54322


_CODE = "Your code is {{ .Code }}"
# The CLI's `supabase init` template (pkg/config/templates/config.toml), rendered: the CLI
# merges it under config.toml, so these are the values of omitted keys.
TEMPLATE: dict[str, Any] = {
    "api": {"enabled": True, "port": 54321, "schemas": ["public", "graphql_public"],
            "extra_search_path": ["public", "extensions"], "max_rows": 1000, "tls": {"enabled": False}},
    "db": {
        "port": 54322, "shadow_port": 54320, "major_version": 17,
        "pooler": {"enabled": False, "port": 54329, "pool_mode": "transaction", "default_pool_size": 20,
                   "max_client_conn": 100},
        "migrations": {"enabled": True, "schema_paths": []},
        "seed": {"enabled": True, "sql_paths": ["./seed.sql"]},
        "network_restrictions": {"enabled": False, "allowed_cidrs": ["0.0.0.0/0"], "allowed_cidrs_v6": ["::/0"]},
    },
    "realtime": {"enabled": True, "ip_version": "IPv4", "max_header_length": 4096},
    "studio": {"enabled": True, "port": 54323, "api_url": "http://127.0.0.1", "openai_api_key": "env(OPENAI_API_KEY)"},
    "inbucket": {"enabled": True, "port": 54324, "admin_email": "admin@email.com", "sender_name": "Admin"},
    # Newer CLIs' name for [inbucket] (the mail catcher, Mailpit), which they write at `supabase init`.
    "local_smtp": {"enabled": True, "port": 54324, "admin_email": "admin@email.com", "sender_name": "Admin"},
    "storage": {"enabled": True, "file_size_limit": "50MiB"},
    "auth": {
        "enabled": True, "site_url": "http://127.0.0.1:3000", "additional_redirect_urls": ["https://127.0.0.1:3000"],
        "external_url": "", "jwt_issuer": "",  # commented out in the template: "" is their value
        "jwt_expiry": 3600, "enable_refresh_token_rotation": True, "refresh_token_reuse_interval": 10,
        "enable_signup": True, "enable_anonymous_sign_ins": False, "enable_manual_linking": False,
        "minimum_password_length": 6, "password_requirements": "",
        "rate_limit": {"email_sent": 2, "sms_sent": 30, "anonymous_users": 30, "token_refresh": 150,
                       "sign_in_sign_ups": 30, "token_verifications": 30, "web3": 30},
        "email": {"enable_signup": True, "double_confirm_changes": True, "enable_confirmations": False,
                  "secure_password_change": False, "max_frequency": "1s", "otp_length": 6, "otp_expiry": 3600},
        "sms": {"enable_signup": False, "enable_confirmations": False, "template": _CODE, "max_frequency": "5s",
                "twilio": {"enabled": False, "account_sid": "", "message_service_sid": "",
                           "auth_token": "env(SUPABASE_AUTH_SMS_TWILIO_AUTH_TOKEN)"}},
        "mfa": {"max_enrolled_factors": 10, "totp": {"enroll_enabled": False, "verify_enabled": False},
                "phone": {"enroll_enabled": False, "verify_enabled": False, "otp_length": 6, "template": _CODE,
                          "max_frequency": "5s"},
                "web_authn": {"enroll_enabled": False, "verify_enabled": False}},
        "external": {"apple": {"enabled": False, "client_id": "", "secret": "env(SUPABASE_AUTH_EXTERNAL_APPLE_SECRET)",
                               "redirect_uri": "", "url": "", "skip_nonce_check": False, "email_optional": False}},
        "web3": {"solana": {"enabled": False}},
        "third_party": {name: {"enabled": False} for name in ("firebase", "auth0", "aws_cognito", "clerk")},
        "oauth_server": {"enabled": False, "authorization_url_path": "/oauth/consent",
                         "allow_dynamic_registration": False},
    },
    "edge_runtime": {"enabled": True, "policy": "per_worker", "inspector_port": 8083, "deno_version": 2},
    "analytics": {"enabled": True, "port": 54327, "backend": "postgres"},
    "experimental": {"orioledb_version": "", "s3_host": "env(S3_HOST)", "s3_region": "env(S3_REGION)",
                     "s3_access_key": "env(S3_ACCESS_KEY)", "s3_secret_key": "env(S3_SECRET_KEY)"},
}

# Services of `supabase start` that supalite does not run: one line when their table is enabled.
_ABSENT_SERVICES = {
    "studio": "Studio is not part of supalite (use `supalite psql` or any SQL client)",
    "inbucket": "no Inbucket/Mailpit: auth mails go to the dev inbox at /inbox on the API",
    "local_smtp": "no Mailpit: auth mails go to the dev inbox at /inbox on the API",
    "analytics": "no log analytics (Logflare, Vector)",
}
_TOP_LEVEL = {"project_id", "api", "db", "realtime", "studio", "inbucket", "local_smtp", "storage", "auth", "edge_runtime",
              "functions", "analytics", "experimental", "remotes"}
_ENV_REF = re.compile(r"env\((.*)\)", re.DOTALL)  # the CLI's ^env\((.*)\)$
_PASSWORD_REQUIREMENTS = {  # the CLI's names -> GOTRUE_PASSWORD_REQUIRED_CHARACTERS (as `supabase start` sets it)
    "": "",
    "letters_digits": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ:0123456789",
    "lower_upper_letters_digits": "abcdefghijklmnopqrstuvwxyz:ABCDEFGHIJKLMNOPQRSTUVWXYZ:0123456789",
    "lower_upper_letters_digits_symbols":
        "abcdefghijklmnopqrstuvwxyz:ABCDEFGHIJKLMNOPQRSTUVWXYZ:0123456789:!@#$%^&*()_+-=[]{};'\\\\:\"|<>?,./`~",
}
# storage-api's bucket names, as server/storage/paths.py checks them (not imported: it loads the whole service).
_BUCKET_NAME = re.compile(r"[A-Za-z0-9_\-.!*'() &$@=;:+,?]{1,100}")
_PROVIDER_NAME = re.compile(r"[a-z0-9_]+")
_HOOK_SECRET = re.compile(r"v1,whsec_[A-Za-z0-9+/=]{32,88}")  # the CLI's hookSecretPattern
_SIZE = re.compile(r"(\d+(?:\.\d*)?|\.\d+) ?([kmgtp]?)(i?b?)", re.IGNORECASE)
# The CLI sends auth mail to Inbucket with this hourly limit; [auth.rate_limit] email_sent only counts with SMTP.
_LOCAL_EMAIL_RATE = "360000"


def parse_size(text: str) -> int:
    """docker/go-units RAMInBytes, as the CLI reads sizes: "50MiB", "5MB" and "5M" are all binary."""
    match = _SIZE.fullmatch(text.strip())
    if match is None or match[3].lower() not in ("", "b", "ib") or (match[3].lower() == "ib" and not match[2]):
        raise ValueError(text)
    return int(float(match[1]) * 1024 ** " kmgtp".index((match[2] or " ").lower()))


def project_environment(project: SupabaseProject, environ: Mapping[str, str]) -> dict[str, str]:
    """What `env(NAME)` reads: the environment over the .env files the CLI loads (supabase/ first,
    then the project folder; .env.<SUPABASE_ENV>.local, .env.local, .env.<SUPABASE_ENV>, .env)."""
    stage = environ.get("SUPABASE_ENV") or "development"
    names = [f".env.{stage}.local", *([".env.local"] if stage != "test" else []), f".env.{stage}", ".env"]
    values: dict[str, str] = {}
    for folder in (project.supabase_dir, project.root):
        for name in names:
            for key, value in read_dotenv(folder / name).items():
                values.setdefault(key, value)  # godotenv.Load: the first file to set a name wins
    values.update(environ)
    return values


class _Reader:
    """One reading of config.toml: the environment, and what it has found so far."""

    def __init__(self, project: SupabaseProject, env: Mapping[str, str]) -> None:
        self.project = project
        self.env = env
        self.settings: dict[str, str] = {}
        self.warnings: list[str] = []

    def set(self, name: str, value: object) -> None:
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, (list, tuple)):
            value = ",".join(str(v) for v in value)
        self.settings[name] = str(value)

    def warn(self, line: str) -> None:
        self.warnings.append(f"supabase/config.toml: {line}")


class _Table:
    """A table of config.toml over its template defaults. Reading a key marks it known;
    `finish` warns about the keys nothing read."""

    def __init__(self, reader: _Reader, path: tuple[str, ...], data: Mapping[str, Any],
                 defaults: Mapping[str, Any], active: bool = True) -> None:
        self.reader, self.path, self.data, self.defaults, self.active = reader, path, data, defaults, active
        self.seen: set[str] = set()

    @property
    def name(self) -> str:
        return "[" + ".".join(self.path) + "]" if self.path else "config.toml"

    def where(self, key: str) -> str:
        return f"{self.name} {key}" if self.path else key

    def given(self, key: str) -> bool:
        return key in self.data or self._override(key) is not None

    def _override(self, key: str) -> str | None:
        return self.reader.env.get("SUPABASE_" + "_".join((*self.path, key)).upper())

    def raw(self, key: str) -> Any:
        self.seen.add(key)
        override = self._override(key)
        if override is not None:
            return override
        return self.data[key] if key in self.data else self.defaults.get(key)

    def _expand(self, key: str, value: Any) -> Any:
        if not isinstance(value, str) or not (match := _ENV_REF.fullmatch(value)):
            return value
        found = self.reader.env.get(match[1])
        if found:
            return found
        if self.active:
            self.reader.warn(f"environment variable is unset: {match[1]} ({self.where(key)})")
        return value

    def _bad(self, key: str, what: str) -> ConfigError:
        return ConfigError(f"{self.where(key)} must be {what}")

    def string(self, key: str) -> str:
        value = self._expand(key, self.raw(key))
        if value is None:
            return ""
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self._bad(key, "a string")
        return str(value)

    def integer(self, key: str, low: int = 0, high: int | None = None) -> int:
        value = self._expand(key, self.raw(key))
        if value is None:  # neither in the file nor in the template: Go's zero value
            value = 0
        if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise self._bad(key, "an integer")
        if value < low or (high is not None and value > high):
            raise self._bad(key, f"between {low} and {high}" if high is not None else f"at least {low}")
        return value

    def boolean(self, key: str) -> bool:
        value = self._expand(key, self.raw(key))
        if value is None:
            return False
        if isinstance(value, str):  # strconv.ParseBool
            if value in ("1", "t", "T", "true", "TRUE", "True"):
                return True
            if value in ("0", "f", "F", "false", "FALSE", "False"):
                return False
        if not isinstance(value, bool):
            raise self._bad(key, "true or false")
        return value

    def strings(self, key: str) -> list[str]:
        value = self.raw(key)
        if value is None:
            return []
        value = self._expand(key, value)
        if isinstance(value, str):  # mapstructure's StringToSliceHookFunc(",")
            return value.split(",") if value else []
        if not isinstance(value, list) or not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in value):
            raise self._bad(key, "a list of strings")
        return [str(self._expand(key, v)) for v in value]

    def duration(self, key: str) -> str:
        value = self.string(key)
        try:
            go_duration(value)
        except ValueError:
            raise self._bad(key, 'a duration such as "24h" or "90s"') from None
        return value

    def size(self, key: str) -> int:
        value = self._expand(key, self.raw(key))
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
        try:
            return parse_size(value) if isinstance(value, str) else parse_size("")
        except ValueError:
            raise self._bad(key, 'a size such as "50MiB"') from None

    def table(self, key: str, active: bool | None = None) -> _Table:
        self.seen.add(key)
        data = self.data.get(key, {})
        if not isinstance(data, dict):
            raise ConfigError(f"{self.where(key)} must be a table")
        defaults = self.defaults.get(key) or {}
        return _Table(self.reader, (*self.path, key), data, defaults, self.active if active is None else active)

    def tables(self, key: str) -> dict[str, _Table]:
        """A table of named tables ([auth.external.<name>], [storage.buckets.<name>]...)."""
        holder = self.table(key)
        found = {}
        for name in sorted({*holder.defaults, *holder.data}):
            found[name] = holder.table(name)
        return found

    def enabled(self, default: bool | None = None) -> bool:
        """`enabled`, which also makes the table active or not: a disabled one asks for nothing."""
        value = self.boolean("enabled") if default is None or self.given("enabled") else default
        self.active = self.active and value
        return value

    def unsupported(self, *keys: str, why: str = "not supported by supalite, ignored") -> None:
        """Keys supalite does not honour: a line for each one set to another value than the template's."""
        for key in keys:
            value = self.raw(key)
            if self.active and self.given(key) and value != self.defaults.get(key):
                self.reader.warn(f"{self.where(key)}: {why}")

    def finish(self) -> None:
        if not self.active:
            return
        for key in sorted(set(self.data) - self.seen):
            self.reader.warn(f"unknown key {self.where(key)}, ignored")


def _functions(root: _Table) -> None:
    """[edge_runtime] and [functions.<name>]: served by server/functions, which reads a
    function's keys (verify_jwt, entrypoint, import_map, enabled) itself when it is called."""
    runtime = root.table("edge_runtime")
    runtime.enabled(default=True)
    runtime.unsupported("inspector_port", why="no inspector: functions run without a debugger port, ignored")
    runtime.unsupported("policy", why="every function keeps one process (per_worker), ignored")
    runtime.unsupported("deno_version", why="functions run on Deno 2, ignored")
    runtime.finish()
    for function in root.tables("functions").values():
        for key in ("enabled", "verify_jwt", "entrypoint", "import_map"):
            function.raw(key)
        function.unsupported("static_files", why="static files are not bundled, ignored")
        function.finish()


def read_project_config(project: SupabaseProject, environ: Mapping[str, str] | None = None) -> ProjectConfig:
    """Parse config.toml; ConfigError (one line, naming the key) for what cannot be run.

    `environ` (default: the process environment) feeds `env(NAME)` values and the CLI's
    SUPABASE_* overrides, over the project's .env files.
    """
    try:
        data = tomllib.loads(project.config_path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read supabase/config.toml: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError("supabase/config.toml is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"supabase/config.toml: {exc}") from None
    for key, value in data.items():
        if key not in _TOP_LEVEL:
            kind = f"table [{key}]" if isinstance(value, dict) else f"key {key}"
            raise ConfigError(f"unknown {kind} in supabase/config.toml")
    reader = _Reader(project, project_environment(project, os.environ if environ is None else environ))
    root = _Table(reader, (), data, TEMPLATE)
    root.seen.add("remotes")  # [remotes.<name>] apply to hosted branches, never to a local stack
    project_id = _project_id(root)
    reader.set("SUPALITE_DATA_DIR", project.default_data_dir)
    reader.set("SUPALITE_DEV", True)  # a local development stack, as `supabase start`'s
    api_port = _api(root.table("api"))
    db = _db(root.table("db"))
    _realtime(root.table("realtime"))
    buckets = _storage(root.table("storage"), project)
    _auth(root.table("auth"))
    for service, why in _ABSENT_SERVICES.items():
        table = root.table(service)
        if service in data and table.enabled(default=True):
            reader.warn(f"[{service}]: {why}")
    _functions(root)
    experimental = root.table("experimental")
    experimental.unsupported(*sorted({*experimental.data, *experimental.defaults}))
    return ProjectConfig(
        project_id=project_id, settings_env=reader.settings, warnings=reader.warnings, buckets=buckets,
        seed_enabled=db["seed_enabled"], seed_paths=db["seed_paths"], migrations_enabled=db["migrations_enabled"],
        major_version=db["major_version"], api_port=api_port, db_port=db["port"],
    )


def project_settings_env(env: Mapping[str, str]) -> dict[str, str]:
    """The settings of the Supabase project at SUPALITE_PROJECT_DIR (default: the working
    directory), for load_settings to put under `env`; nothing outside a project folder."""
    project = find_project(Path(env.get("SUPALITE_PROJECT_DIR") or ".").expanduser())
    return read_project_config(project, env).settings_env if project else {}


def _project_id(root: _Table) -> str:
    project_id = root.string("project_id")
    if not project_id:
        raise ConfigError("project_id must be set in supabase/config.toml")
    # The CLI's sanitizeProjectId: letters, digits, _ . - only, starting with a letter or digit, 40 at most.
    sanitized = re.sub(r"[^a-zA-Z0-9_.-]+", "_", project_id).lstrip("_.-")[:40]
    if sanitized != project_id:
        root.reader.warn(f"project_id {project_id!r} is invalid, using {sanitized!r}")
    return sanitized


def _api(api: _Table) -> int:
    if not api.enabled():
        api.reader.warn("[api] enabled = false: the REST API is always served")
        api.active = True
    port = api.integer("port", 1, 65535)
    api.reader.set("SUPALITE_PORT", port)
    api.reader.set("PGRST_DB_SCHEMAS", api.strings("schemas"))
    api.reader.set("PGRST_DB_EXTRA_SEARCH_PATH", api.strings("extra_search_path"))
    max_rows = api.integer("max_rows")
    api.reader.set("PGRST_DB_MAX_ROWS", max_rows or "")  # 0: no limit, as the CLI leaves it unset
    if api.given("external_url"):
        api.reader.set("SUPALITE_PUBLIC_URL", api.string("external_url"))
    tls = api.table("tls")
    if tls.enabled():
        api.reader.warn("[api.tls]: HTTPS is not served: put a TLS proxy in front")
    tls.seen.update(tls.data)
    api.finish()
    return port


def _db(db: _Table) -> dict[str, Any]:
    port = db.integer("port", 1, 65535)
    db.reader.set("SUPALITE_DB_PORT", port)
    major = db.integer("major_version")
    if major not in (13, 14, 15, 17):  # the CLI's Validate
        raise ConfigError(f"[db] major_version {major} is not supported (13, 14, 15 or 17)")
    db.unsupported("shadow_port", why="no shadow database (`db diff` is not supported), ignored")
    seed = db.table("seed")
    seed_enabled = seed.boolean("enabled")
    seed_paths = seed.strings("sql_paths")
    seed.finish()
    migrations = db.table("migrations")
    migrations_enabled = migrations.boolean("enabled")
    migrations.unsupported("schema_paths", why="declarative schemas are not supported, ignored")
    migrations.finish()
    for name, why in (("pooler", "no connection pooler (Supavisor), ignored"),
                      ("network_restrictions", "not applied to the local database, ignored")):
        section = db.table(name)
        if section.enabled(default=False):
            db.reader.warn(f"[db.{name}]: {why}")
        section.seen.update(section.data)
    for name in ("vault", "settings"):
        for key in sorted(db.table(name).data):
            db.reader.warn(f"[db.{name}] {key}: not supported by supalite, ignored")
    db.finish()
    return {"port": port, "major_version": major, "seed_enabled": seed_enabled, "seed_paths": seed_paths,
            "migrations_enabled": migrations_enabled}


def _realtime(realtime: _Table) -> None:
    if not realtime.enabled():
        realtime.reader.warn("[realtime] enabled = false: realtime is always served")
        realtime.active = True
    realtime.unsupported("ip_version", "max_header_length")
    realtime.finish()


def _storage(storage: _Table, project: SupabaseProject) -> list[BucketConfig]:
    if not storage.enabled():
        storage.reader.warn("[storage] enabled = false: storage is always served")
        storage.active = True
    limit = storage.size("file_size_limit")
    storage.reader.set("SUPALITE_FILE_SIZE_LIMIT", limit)
    storage.table("image_transformation").seen.add("enabled")  # always on in supalite
    for name in ("s3_protocol", "analytics", "vector"):
        section = storage.table(name)
        if section.enabled(default=False):
            storage.reader.warn(f"[storage.{name}]: not supported by supalite, ignored")
        section.seen.update(section.data)
    buckets = []
    for name, bucket in storage.tables("buckets").items():
        if not _BUCKET_NAME.fullmatch(name) or name in (".", "..") or name.strip() != name:
            raise ConfigError(f"[storage.buckets.{name}]: invalid bucket name")
        objects_path = bucket.string("objects_path")
        types = bucket.strings("allowed_mime_types") if bucket.given("allowed_mime_types") else None
        buckets.append(BucketConfig(
            name=name,
            public=bucket.boolean("public") if bucket.given("public") else False,
            # The CLI's resolve: a bucket without its own limit takes [storage] file_size_limit.
            file_size_limit=(bucket.size("file_size_limit") if bucket.given("file_size_limit") else 0) or limit,
            allowed_mime_types=types,
            objects_path=project.supabase_dir / objects_path if objects_path else None,
        ))
        bucket.finish()
    storage.finish()
    return buckets


def _auth(auth: _Table) -> None:
    reader = auth.reader
    if not auth.enabled():
        reader.warn("[auth] enabled = false: auth is always served")
        auth.active = True
    reader.set("GOTRUE_SITE_URL", auth.string("site_url"))
    reader.set("GOTRUE_URI_ALLOW_LIST", auth.strings("additional_redirect_urls"))
    reader.set("SUPALITE_JWT_EXPIRY", auth.integer("jwt_expiry", 1))
    reader.set("GOTRUE_DISABLE_SIGNUP", not auth.boolean("enable_signup"))
    reader.set("GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED", auth.boolean("enable_anonymous_sign_ins"))
    reader.set("GOTRUE_SECURITY_MANUAL_LINKING_ENABLED", auth.boolean("enable_manual_linking"))
    reader.set("GOTRUE_PASSWORD_MIN_LENGTH", auth.integer("minimum_password_length"))
    requirements = auth.string("password_requirements")
    if requirements not in _PASSWORD_REQUIREMENTS:
        raise ConfigError("[auth] password_requirements must be one of " + ", ".join(
            repr(name) for name in _PASSWORD_REQUIREMENTS))
    reader.set("GOTRUE_PASSWORD_REQUIRED_CHARACTERS", _PASSWORD_REQUIREMENTS[requirements])
    for key, setting in (("jwt_secret", "SUPALITE_JWT_SECRET"), ("anon_key", "SUPALITE_ANON_KEY"),
                         ("service_role_key", "SUPALITE_SERVICE_ROLE_KEY")):
        if auth.given(key):
            reader.set(setting, auth.string(key))
    if signing_keys_path := auth.string("signing_keys_path"):  # as the CLI: relative to supabase/, "" for none
        reader.set("SUPALITE_JWT_KEYS_FILE", reader.project.supabase_dir / signing_keys_path)
    auth.unsupported("enable_refresh_token_rotation", "refresh_token_reuse_interval", "publishable_key",
                     "secret_key")
    auth.unsupported("external_url", "jwt_issuer",
                     why="tokens are issued by the API URL + /auth/v1 ([api] external_url sets it), ignored")
    _auth_passkeys(auth)
    smtp_enabled = _auth_email(auth.table("email"))
    rate = auth.table("rate_limit")
    for key in ("sms_sent", "anonymous_users", "token_refresh", "sign_in_sign_ups", "token_verifications"):
        reader.set(f"SUPALITE_AUTH_RATE_LIMIT_{key.upper()}", rate.integer(key))
    email_sent = rate.integer("email_sent")
    reader.set("SUPALITE_AUTH_RATE_LIMIT_EMAIL_SENT", email_sent if smtp_enabled else _LOCAL_EMAIL_RATE)
    # `supabase start` sets no GOTRUE_RATE_LIMIT_HEADER: GoTrue then counts no client against the
    # per-client limits above (server/auth/ratelimit.py); the mail and SMS counts still apply.
    reader.set("SUPALITE_AUTH_RATE_LIMIT_BY", "header")
    rate.unsupported("web3")
    rate.finish()
    _auth_sms(auth.table("sms"))
    _auth_mfa(auth.table("mfa"))
    sessions = auth.table("sessions")
    for key in ("timebox", "inactivity_timeout"):
        if sessions.given(key):
            reader.set(f"SUPALITE_AUTH_SESSIONS_{key.upper()}", sessions.duration(key))
    sessions.finish()
    _auth_hooks(auth.table("hook"))
    _auth_external(auth)
    oauth_server = auth.table("oauth_server")
    enabled = oauth_server.enabled()
    reader.set("GOTRUE_OAUTH_SERVER_ENABLED", enabled)
    if enabled:  # as the CLI, which sets the other two only then
        reader.set("GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION", oauth_server.boolean("allow_dynamic_registration"))
    oauth_server.unsupported("authorization_url_path",
                             why="no authorization flow (/oauth/authorize) is served, only the clients' API, ignored")
    oauth_server.finish()
    for name, tables in (("web3", ("solana", "ethereum")),
                         ("third_party", ("firebase", "auth0", "aws_cognito", "clerk", "workos"))):
        holder = auth.table(name)
        for provider in sorted({*tables, *holder.data}):
            section = holder.table(provider)
            if section.enabled(default=False):
                reader.warn(f"[auth.{name}.{provider}]: not supported by supalite, ignored")
            section.seen.update(section.data)
        holder.finish()
    captcha = auth.table("captcha")
    if captcha.enabled(default=False):
        reader.warn("[auth.captcha]: captcha is not checked by supalite, ignored")
    captcha.seen.update(captcha.data)
    auth.finish()


def _auth_passkeys(auth: _Table) -> None:
    """[auth.passkey] and [auth.webauthn], optional tables: as the CLI's appendGotruePasskeyEnv,
    set only when the table is there (the server's defaults otherwise: passkeys off, the
    relying party from the site URL)."""
    reader = auth.reader
    passkey = auth.table("passkey")
    if passkey.data or passkey.given("enabled"):
        reader.set("GOTRUE_PASSKEY_ENABLED", passkey.boolean("enabled"))
    passkey.finish()
    webauthn = auth.table("webauthn")
    keys = ("rp_display_name", "rp_id", "rp_origins")
    if webauthn.data or any(webauthn.given(key) for key in keys):
        reader.set("GOTRUE_WEBAUTHN_RP_DISPLAY_NAME", webauthn.string("rp_display_name"))
        reader.set("GOTRUE_WEBAUTHN_RP_ID", webauthn.string("rp_id"))
        reader.set("GOTRUE_WEBAUTHN_RP_ORIGINS", webauthn.strings("rp_origins"))
    webauthn.finish()


def _auth_email(email: _Table) -> bool:
    """[auth.email] and its SMTP server; whether SMTP is enabled."""
    reader = email.reader
    reader.set("GOTRUE_EXTERNAL_EMAIL_ENABLED", email.boolean("enable_signup"))
    reader.set("GOTRUE_MAILER_AUTOCONFIRM", not email.boolean("enable_confirmations"))
    reader.set("GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION", email.boolean("secure_password_change"))
    reader.set("GOTRUE_SMTP_MAX_FREQUENCY", email.duration("max_frequency"))
    email.unsupported("double_confirm_changes",
                      why="an e-mail change is confirmed by the new address only, whatever this says")
    email.unsupported("otp_length", "otp_expiry")
    for name, section in email.tables("template").items():
        _email_template(name, section)
    for name, section in email.tables("notification").items():
        if section.enabled(default=False):
            reader.warn(f"[auth.email.notification.{name}]: supalite sends no notification mails, ignored")
        section.seen.update(section.data)
    smtp = email.table("smtp")
    # The CLI: a [auth.email.smtp] table without `enabled` is enabled.
    enabled = bool(smtp.data) and smtp.enabled(default=True)
    if enabled:
        host, port = smtp.string("host"), smtp.integer("port", 1, 65535)
        if not host:
            raise ConfigError("[auth.email.smtp] host must be set")
        user, password = smtp.string("user"), smtp.string("pass")
        credentials = f"{quote(user, safe='')}:{quote(password, safe='')}@" if user else ""
        scheme = "smtps" if port == 465 else "smtp"  # implicit TLS on 465, STARTTLS on 587 (as GoTrue)
        reader.set("SUPALITE_SMTP_URL", f"{scheme}://{credentials}{host}:{port}")
        smtp.unsupported("admin_email", "sender_name", why="mail is sent from noreply@<SMTP host>, ignored")
    else:
        smtp.seen.update(smtp.data)  # a disabled server asks for nothing; an enabled one's unknown keys are said
    smtp.finish()
    email.finish()
    return enabled


def _email_template(name: str, section: _Table) -> None:
    """[auth.email.template.<type>]: `subject` and `content_path` -> GOTRUE_MAILER_SUBJECTS_<TYPE>,
    GOTRUE_MAILER_TEMPLATES_<TYPE>. As the CLI, content_path is relative to the folder holding
    supabase/ (its "only email template is relative to repo directory") and must exist."""
    reader = section.reader
    if name not in MAIL_TYPES:
        reader.warn(f"[auth.email.template.{name}]: not a mail template type ({', '.join(MAIL_TYPES)}), ignored")
        section.seen.update(section.data)
        return
    if section.given("subject"):
        reader.set(f"GOTRUE_MAILER_SUBJECTS_{name.upper()}", section.string("subject"))
    if content_path := section.string("content_path"):
        path = reader.project.root / content_path
        if not path.is_file():
            raise ConfigError(f"[auth.email.template.{name}] content_path: no such file {path}")
        reader.set(f"GOTRUE_MAILER_TEMPLATES_{name.upper()}", path)
    section.unsupported("content", why="only content_path is read from config.toml (as the CLI), ignored")
    section.finish()


def _auth_sms(sms: _Table) -> None:
    reader = sms.reader
    # The dev inbox (or the send_sms hook) delivers codes: phone sign-in needs no SMS provider.
    reader.set("GOTRUE_EXTERNAL_PHONE_ENABLED", sms.boolean("enable_signup"))
    reader.set("GOTRUE_SMS_AUTOCONFIRM", not sms.boolean("enable_confirmations"))
    reader.set("GOTRUE_SMS_TEMPLATE", sms.string("template"))
    reader.set("GOTRUE_SMS_OTP_EXP", 6000)  # `supabase start` fixes both
    reader.set("GOTRUE_SMS_OTP_LENGTH", 6)
    reader.set("GOTRUE_SMS_MAX_FREQUENCY", sms.duration("max_frequency"))
    codes = sms.table("test_otp")
    pairs = []
    for phone in sorted(codes.data):
        otp = codes.string(phone)
        if not phone.removeprefix("+").isdigit() or not otp.isdigit():
            raise ConfigError(f"[auth.sms.test_otp] {phone} = {otp!r}: a phone number and a code of digits")
        pairs.append(f"{phone.removeprefix('+')}:{otp}")
    reader.set("GOTRUE_SMS_TEST_OTP", sorted(pairs))
    for provider in ("twilio", "twilio_verify", "messagebird", "textlocal", "vonage"):
        section = sms.table(provider)
        if section.enabled(default=False):
            reader.warn(f"[auth.sms.{provider}]: SMS go to the dev inbox or the send_sms hook, ignored")
        section.seen.update(section.data)
    sms.finish()


def _auth_mfa(mfa: _Table) -> None:
    reader = mfa.reader
    reader.set("GOTRUE_MFA_MAX_ENROLLED_FACTORS", mfa.integer("max_enrolled_factors"))
    for factor in ("totp", "phone", "web_authn"):
        section = mfa.table(factor)
        enroll, verify = section.boolean("enroll_enabled"), section.boolean("verify_enabled")
        if enroll and not verify:  # the CLI's mfa.validate
            raise ConfigError(f"[auth.mfa.{factor}] enroll_enabled requires verify_enabled")
        reader.set(f"GOTRUE_MFA_{factor.upper()}_ENROLL_ENABLED", enroll)
        reader.set(f"GOTRUE_MFA_{factor.upper()}_VERIFY_ENABLED", verify)
        if factor == "phone":
            length, template, frequency = (section.integer("otp_length"), section.string("template"),
                                           section.duration("max_frequency"))
            if enroll or verify:  # the CLI sets these three only then
                reader.set("GOTRUE_MFA_PHONE_OTP_LENGTH", length)
                reader.set("GOTRUE_MFA_PHONE_TEMPLATE", template)
                reader.set("GOTRUE_MFA_PHONE_MAX_FREQUENCY", frequency)
        section.finish()
    mfa.finish()


def _auth_hooks(hooks: _Table) -> None:
    reader = hooks.reader
    for name in sorted({"send_sms", *hooks.data}):
        hook = hooks.table(name)
        if not hook.enabled(default=False):
            hook.seen.update(hook.data)
            continue
        uri = hook.string("uri")
        if name != "send_sms" or not uri.lower().startswith(("http://", "https://")):
            hook.seen.update(hook.data)
            reader.warn(f"[auth.hook.{name}]: only an http(s) send_sms hook is supported, ignored")
            continue
        secrets = hook.string("secrets")
        if not all(_HOOK_SECRET.fullmatch(secret) for secret in secrets.split("|")):
            raise ConfigError(f'[auth.hook.{name}] secrets must be formatted as "v1,whsec_<base64>"')
        reader.set("GOTRUE_HOOK_SEND_SMS_URI", uri)
        reader.set("GOTRUE_HOOK_SEND_SMS_SECRETS", secrets)
        reader.set("GOTRUE_SMS_PROVIDER", "hook")
        hook.finish()
    hooks.finish()


# GoTrue's OpenID Connect providers whose issuer is known (server/auth/oidc_providers.py's
# DEFAULT_ISSUERS): they need no `url`.
_KNOWN_OIDC_PROVIDERS = frozenset(("apple", "azure", "google", "kakao", "linkedin_oidc", "slack_oidc",
                                   "vercel_marketplace"))


def _auth_external(auth: _Table) -> None:
    reader = auth.reader
    for name, provider in auth.tables("external").items():
        if not _PROVIDER_NAME.fullmatch(name):
            raise ConfigError(f"[auth.external.{name}]: a provider name is lower-case letters, digits and _")
        prefix = f"GOTRUE_EXTERNAL_{name.upper()}_"
        enabled = provider.enabled()
        reader.set(prefix + "ENABLED", enabled)
        if not enabled:
            provider.seen.update(provider.data)
            continue
        if name in ("linkedin", "slack"):  # the CLI drops them
            reader.warn(f"[auth.external.{name}]: deprecated provider, use [auth.external.{name}_oidc]")
            reader.set(prefix + "ENABLED", False)
            continue
        client_id = provider.string("client_id")
        if not client_id:
            raise ConfigError(f"[auth.external.{name}] client_id must be set")
        reader.set(prefix + "CLIENT_ID", client_id)
        reader.set(prefix + "SECRET", provider.string("secret"))
        reader.set(prefix + "SKIP_NONCE_CHECK", provider.boolean("skip_nonce_check"))
        for key in ("redirect_uri", "url"):
            if value := provider.string(key):
                reader.set(prefix + key.upper(), value)
        if name == "keycloak" and not provider.string("url"):  # GoTrue requires it too
            reader.warn("[auth.external.keycloak]: url must be set to the realm's issuer"
                        " (https://<host>/realms/<realm>), sign-in with keycloak fails without it")
        elif name not in _KNOWN_OIDC_PROVIDERS and not provider.string("url"):
            reader.warn(f"[auth.external.{name}]: supalite signs in with OpenID Connect providers only: "
                        "set url to the provider's issuer")
        provider.unsupported("email_optional")
        provider.finish()
