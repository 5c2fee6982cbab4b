"""supabase/config.toml read as the Supabase CLI reads it (server/provision/supabase_project/config_toml.py)."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import httpx
import jwt as pyjwt
import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from server.core.config import ConfigError
from server.provision.settings import load_settings
from server.provision.supabase_project.config_toml import BucketConfig, ProjectConfig, parse_size, read_project_config
from server.provision.supabase_project.layout import SupabaseProject
from server.provision.supabase_project.status import status_values
from tests import harness
from tests.js.node_suite import run_node_suite

FIXTURES = Path(__file__).parent / "config_fixtures"
PREFIX = "supabase/config.toml: "


def project(tmp_path: Path, toml: str, files: dict[str, str] | None = None) -> SupabaseProject:
    (tmp_path / "supabase").mkdir(exist_ok=True)
    (tmp_path / "supabase" / "config.toml").write_text(textwrap.dedent(toml))
    for name, text in (files or {}).items():
        (tmp_path / name).write_text(text)
    return SupabaseProject(tmp_path.resolve())


def read(tmp_path: Path, toml: str, environ: dict[str, str] | None = None,
         files: dict[str, str] | None = None) -> ProjectConfig:
    return read_project_config(project(tmp_path, toml, files), environ or {})


def init_project(tmp_path: Path) -> SupabaseProject:
    (tmp_path / "supabase").mkdir()
    shutil.copy(FIXTURES / "init_config.toml", tmp_path / "supabase" / "config.toml")
    return SupabaseProject(tmp_path.resolve())


def test_the_cli_init_template_prints_only_the_services_supalite_does_not_run(tmp_path: Path) -> None:
    config = read_project_config(init_project(tmp_path), {})
    assert [line.removeprefix(PREFIX).split(":")[0] for line in config.warnings] == [
        "[studio]", "[inbucket]", "[analytics]"]
    assert all(line.startswith(PREFIX) and "\n" not in line for line in config.warnings)
    env = config.settings_env
    assert env["SUPALITE_PORT"] == "54321" and env["SUPALITE_DB_PORT"] == "54322"
    assert env["SUPALITE_DATA_DIR"] == str(tmp_path.resolve() / "supabase" / ".supalite")
    assert env["SUPALITE_DEV"] == "true"
    assert env["PGRST_DB_SCHEMAS"] == "public,graphql_public"
    assert env["PGRST_DB_EXTRA_SEARCH_PATH"] == "public,extensions"
    assert env["PGRST_DB_MAX_ROWS"] == "1000"
    assert env["GOTRUE_SITE_URL"] == "http://127.0.0.1:3000"
    assert env["GOTRUE_URI_ALLOW_LIST"] == "https://127.0.0.1:3000"
    assert env["GOTRUE_MAILER_AUTOCONFIRM"] == "true"  # enable_confirmations = false
    assert env["GOTRUE_MFA_TOTP_ENROLL_ENABLED"] == "false"  # the template turns TOTP off
    assert env["SUPALITE_FILE_SIZE_LIMIT"] == str(50 * 1024 * 1024)
    # `supabase start` sends auth mail to Inbucket without the 2/hour limit, which counts with SMTP only
    assert env["SUPALITE_AUTH_RATE_LIMIT_EMAIL_SENT"] == "360000"
    assert (env["GOTRUE_SMTP_MAX_FREQUENCY"], env["GOTRUE_SMS_MAX_FREQUENCY"]) == ("1s", "5s")  # as `supabase start`
    # phone MFA off: the CLI passes none of its otp_length, template, max_frequency; no passkey table, no
    # GOTRUE_PASSKEY_ENABLED; the OAuth server off, nothing of its dynamic registration
    assert not {"GOTRUE_MFA_PHONE_OTP_LENGTH", "GOTRUE_MFA_PHONE_TEMPLATE", "GOTRUE_MFA_PHONE_MAX_FREQUENCY",
                "GOTRUE_PASSKEY_ENABLED", "GOTRUE_WEBAUTHN_RP_ID", "GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION"} & set(env)
    assert (config.project_id, config.api_port, config.db_port, config.major_version) == ("my-app", 54321, 54322, 17)
    assert (config.seed_enabled, config.seed_paths, config.migrations_enabled) == (True, ["./seed.sql"], True)


def test_a_newer_cli_s_local_smtp_table_is_its_mail_catcher(tmp_path: Path) -> None:
    """Newer `supabase init` templates name Inbucket's table [local_smtp]: read, and said once."""
    config = read(tmp_path, """
        project_id = "x"
        [local_smtp]
        enabled = true
        port = 54324
        [inbucket]
        enabled = false
    """)
    assert [line.removeprefix(PREFIX) for line in config.warnings] == [
        "[local_smtp]: no Mailpit: auth mails go to the dev inbox at /inbox on the API"]
    assert read(tmp_path, 'project_id = "x"\n[local_smtp]\nenabled = false\n').warnings == []


def test_omitted_keys_take_the_template_values_as_the_cli_merges_them(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    minimal = read(tmp_path / "a", 'project_id = "my-app"\n')
    full = read_project_config(init_project(tmp_path / "b"), {})
    assert {k: v for k, v in minimal.settings_env.items() if k != "SUPALITE_DATA_DIR"} == \
        {k: v for k, v in full.settings_env.items() if k != "SUPALITE_DATA_DIR"}
    assert minimal.warnings == []  # nothing asked for: no [studio] table, nothing to say


def test_every_mapped_key(tmp_path: Path) -> None:
    config = read(tmp_path, """
        project_id = "shop"
        [api]
        port = 6000
        schemas = ["public", "api"]
        extra_search_path = ["public"]
        max_rows = 25
        external_url = "https://api.example.test"
        [db]
        port = 6001
        major_version = 15
        [db.seed]
        enabled = false
        sql_paths = ["./seeds/*.sql", "./more.sql"]
        [db.migrations]
        enabled = false
        [storage]
        file_size_limit = "5MB"
        [auth]
        site_url = "http://localhost:5173"
        additional_redirect_urls = ["http://localhost:5173/**", "myapp://callback"]
        jwt_expiry = 600
        enable_signup = false
        enable_anonymous_sign_ins = true
        enable_manual_linking = true
        minimum_password_length = 12
        password_requirements = "lower_upper_letters_digits_symbols"
        jwt_secret = "a-project-secret-of-at-least-32-characters"
        signing_keys_path = "./signing_keys.json"
        [auth.passkey]
        enabled = true
        [auth.webauthn]
        rp_display_name = "Shop"
        rp_id = "localhost"
        rp_origins = ["http://localhost:5173", "http://localhost:3000"]
        [auth.rate_limit]
        email_sent = 7
        sms_sent = 8
        anonymous_users = 9
        token_refresh = 10
        sign_in_sign_ups = 11
        token_verifications = 12
        [auth.email]
        enable_signup = false
        enable_confirmations = true
        secure_password_change = true
        max_frequency = "30s"
        [auth.email.smtp]
        host = "smtp.example.test"
        port = 465
        user = "apikey"
        pass = "p@ss:word"
        admin_email = "admin@email.com"
        [auth.sms]
        enable_signup = true
        enable_confirmations = true
        template = "Code: {{ .Code }}"
        max_frequency = "2s"
        [auth.sms.test_otp]
        15555550100 = "123456"
        "+15555550101" = 654321
        [auth.mfa]
        max_enrolled_factors = 3
        [auth.mfa.totp]
        enroll_enabled = true
        verify_enabled = true
        [auth.mfa.phone]
        enroll_enabled = false
        verify_enabled = true
        otp_length = 8
        template = "MFA: {{ .Code }}"
        max_frequency = "3s"
        [auth.mfa.web_authn]
        enroll_enabled = true
        verify_enabled = true
        [auth.sessions]
        timebox = "24h"
        inactivity_timeout = "8h"
        [auth.hook.send_sms]
        enabled = true
        uri = "https://hooks.example.test/sms"
        secrets = "v1,whsec_aGVsbG8td29ybGQtdGhpcy1pcy1hLXNlY3JldA=="
        [auth.external.keycloak]
        enabled = true
        client_id = "web"
        secret = "shh"
        url = "http://idp.test/realms/x"
        redirect_uri = "http://localhost:5173/cb"
        skip_nonce_check = true
        [auth.oauth_server]
        enabled = true
        allow_dynamic_registration = true
        [realtime]
        enabled = true
    """)
    env = config.settings_env
    expected = {
        "SUPALITE_PORT": "6000", "PGRST_DB_SCHEMAS": "public,api", "PGRST_DB_EXTRA_SEARCH_PATH": "public",
        "PGRST_DB_MAX_ROWS": "25", "SUPALITE_PUBLIC_URL": "https://api.example.test", "SUPALITE_DB_PORT": "6001",
        "SUPALITE_FILE_SIZE_LIMIT": str(5 * 1024 * 1024),  # go-units RAMInBytes: MB is binary
        "GOTRUE_SITE_URL": "http://localhost:5173",
        "GOTRUE_URI_ALLOW_LIST": "http://localhost:5173/**,myapp://callback",
        "SUPALITE_JWT_EXPIRY": "600", "GOTRUE_DISABLE_SIGNUP": "true",
        "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true", "GOTRUE_SECURITY_MANUAL_LINKING_ENABLED": "true",
        "GOTRUE_PASSWORD_MIN_LENGTH": "12",
        "GOTRUE_PASSWORD_REQUIRED_CHARACTERS":
            "abcdefghijklmnopqrstuvwxyz:ABCDEFGHIJKLMNOPQRSTUVWXYZ:0123456789:!@#$%^&*()_+-=[]{};'\\\\:\"|<>?,./`~",
        "SUPALITE_JWT_SECRET": "a-project-secret-of-at-least-32-characters",
        "SUPALITE_JWT_KEYS_FILE": str(tmp_path.resolve() / "supabase" / "signing_keys.json"),
        "GOTRUE_PASSKEY_ENABLED": "true", "GOTRUE_WEBAUTHN_RP_DISPLAY_NAME": "Shop", "GOTRUE_WEBAUTHN_RP_ID": "localhost",
        "GOTRUE_WEBAUTHN_RP_ORIGINS": "http://localhost:5173,http://localhost:3000",
        "SUPALITE_AUTH_RATE_LIMIT_BY": "header",
        "SUPALITE_AUTH_RATE_LIMIT_EMAIL_SENT": "7", "SUPALITE_AUTH_RATE_LIMIT_SMS_SENT": "8",
        "SUPALITE_AUTH_RATE_LIMIT_ANONYMOUS_USERS": "9", "SUPALITE_AUTH_RATE_LIMIT_TOKEN_REFRESH": "10",
        "SUPALITE_AUTH_RATE_LIMIT_SIGN_IN_SIGN_UPS": "11", "SUPALITE_AUTH_RATE_LIMIT_TOKEN_VERIFICATIONS": "12",
        "GOTRUE_EXTERNAL_EMAIL_ENABLED": "false", "GOTRUE_MAILER_AUTOCONFIRM": "false",
        "GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION": "true", "GOTRUE_SMTP_MAX_FREQUENCY": "30s",
        "SUPALITE_SMTP_URL": "smtps://apikey:p%40ss%3Aword@smtp.example.test:465",
        "GOTRUE_EXTERNAL_PHONE_ENABLED": "true", "GOTRUE_SMS_AUTOCONFIRM": "false",
        "GOTRUE_SMS_TEMPLATE": "Code: {{ .Code }}", "GOTRUE_SMS_TEST_OTP": "15555550100:123456,15555550101:654321",
        "GOTRUE_SMS_OTP_EXP": "6000", "GOTRUE_SMS_OTP_LENGTH": "6", "GOTRUE_SMS_MAX_FREQUENCY": "2s",
        "GOTRUE_MFA_MAX_ENROLLED_FACTORS": "3", "GOTRUE_MFA_TOTP_ENROLL_ENABLED": "true",
        "GOTRUE_MFA_TOTP_VERIFY_ENABLED": "true", "GOTRUE_MFA_PHONE_ENROLL_ENABLED": "false",
        "GOTRUE_MFA_PHONE_VERIFY_ENABLED": "true", "GOTRUE_MFA_PHONE_OTP_LENGTH": "8",
        "GOTRUE_MFA_PHONE_TEMPLATE": "MFA: {{ .Code }}", "GOTRUE_MFA_PHONE_MAX_FREQUENCY": "3s",
        "GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED": "true",
        "GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED": "true",
        "SUPALITE_AUTH_SESSIONS_TIMEBOX": "24h", "SUPALITE_AUTH_SESSIONS_INACTIVITY_TIMEOUT": "8h",
        "GOTRUE_HOOK_SEND_SMS_URI": "https://hooks.example.test/sms",
        "GOTRUE_HOOK_SEND_SMS_SECRETS": "v1,whsec_aGVsbG8td29ybGQtdGhpcy1pcy1hLXNlY3JldA==",
        "GOTRUE_SMS_PROVIDER": "hook",
        "GOTRUE_EXTERNAL_KEYCLOAK_ENABLED": "true", "GOTRUE_EXTERNAL_KEYCLOAK_CLIENT_ID": "web",
        "GOTRUE_EXTERNAL_KEYCLOAK_SECRET": "shh", "GOTRUE_EXTERNAL_KEYCLOAK_URL": "http://idp.test/realms/x",
        "GOTRUE_EXTERNAL_KEYCLOAK_REDIRECT_URI": "http://localhost:5173/cb",
        "GOTRUE_EXTERNAL_KEYCLOAK_SKIP_NONCE_CHECK": "true", "GOTRUE_OAUTH_SERVER_ENABLED": "true",
        "GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION": "true",
    }
    assert {k: env.get(k) for k in expected} == expected
    assert (config.api_port, config.db_port, config.major_version) == (6000, 6001, 15)
    assert (config.seed_enabled, config.seed_paths, config.migrations_enabled) == (
        False, ["./seeds/*.sql", "./more.sql"], False)
    # admin_email: supalite sends from noreply@<host>
    assert [w.removeprefix(PREFIX) for w in config.warnings] == [
        "[auth.email.smtp] admin_email: mail is sent from noreply@<SMTP host>, ignored"]
    # and every value is one load_settings accepts
    settings = load_settings({"SUPALITE_PROJECT_DIR": str(tmp_path)}, dotenv=None)
    assert settings.db_max_rows == 25 and settings.db_schemas == ("public", "api")
    assert settings.disable_signup and settings.password_min_length == 12
    assert settings.password_required_characters[3] == "!@#$%^&*()_+-=[]{};'\\:\"|<>?,./`~"
    assert settings.sms_test_otp == {"15555550100": "123456", "15555550101": "654321"}
    assert settings.sessions_timebox == 86400 and settings.sessions_inactivity_timeout == 8 * 3600
    assert settings.auth_providers["keycloak"].client_id == ("web",)
    assert settings.file_size_limit == 5 * 1024 * 1024 and settings.dev
    assert settings.passkey_enabled and settings.webauthn_rp_origins == ("http://localhost:5173", "http://localhost:3000")
    assert (settings.smtp_max_frequency, settings.sms_max_frequency, settings.mfa_phone_max_frequency) == (30, 2, 3)
    assert settings.oauth_server_allow_dynamic_registration and settings.rate_limit_by == "header"


def test_buckets(tmp_path: Path) -> None:
    config = read(tmp_path, """
        project_id = "x"
        [storage]
        file_size_limit = "10MiB"
        [storage.buckets.avatars]
        public = true
        file_size_limit = "1MiB"
        allowed_mime_types = ["image/png", "image/jpeg"]
        objects_path = "./seed-objects/avatars"
        [storage.buckets."private docs"]
    """)
    assert config.buckets == [
        BucketConfig("avatars", True, 1024 * 1024, ["image/png", "image/jpeg"],
                     tmp_path.resolve() / "supabase" / "seed-objects" / "avatars"),
        # the CLI's resolve: no limit of its own takes [storage] file_size_limit
        BucketConfig("private docs", False, 10 * 1024 * 1024, None, None),
    ]


@pytest.mark.parametrize("name", ["avatars", "a.b-c_d", "with space", "x" * 100, "", " lead", "a/b", "..", "é",
                                  "x" * 101, "semi;colon"])
def test_bucket_names_are_checked_as_storage_checks_them(tmp_path: Path, name: str) -> None:
    from server.storage.errors import StorageError
    from server.storage.paths import validate_bucket_name

    try:
        validate_bucket_name(name)
        storage_accepts = True
    except StorageError:
        storage_accepts = False
    toml = f'project_id = "x"\n[storage.buckets.{tomllib_quote(name)}]\npublic = true\n'
    if storage_accepts:
        assert [b.name for b in read(tmp_path, toml).buckets] == [name]
    else:
        with pytest.raises(ConfigError, match="invalid bucket name"):
            read(tmp_path, toml)


def tomllib_quote(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def test_sizes_are_read_as_the_cli_reads_them() -> None:
    assert parse_size("50MiB") == parse_size("50MB") == parse_size("50m") == parse_size("50 MB") == 50 * 1024 ** 2
    assert parse_size("500KB") == 500 * 1024 and parse_size("1.5GiB") == 1536 * 1024 ** 2
    assert parse_size("1024") == parse_size("1024b") == 1024
    for bad in ("", "MB", "5 XB", "5MiBB", "5ib", "-5MB", "5 mega"):
        with pytest.raises(ValueError):
            parse_size(bad)


def test_env_values_come_from_the_environment_then_the_project_env_files(tmp_path: Path) -> None:
    toml = """
        project_id = "x"
        [auth]
        site_url = "env(SITE)"
        jwt_secret = "env(SECRET)"
        [api]
        port = "env(API_PORT)"
        [auth.external.keycloak]
        enabled = true
        client_id = "env(KC_ID)"
        secret = "env(KC_SECRET)"
        url = "http://idp.test"
    """
    config = read(tmp_path, toml, {"SITE": "http://from-env.test", "API_PORT": "7000"},
                  {"supabase/.env": "SITE=http://from-file.test\nSECRET=file-secret-of-at-least-32-characters!\n",
                   "supabase/.env.local": "KC_ID=local-id\n", ".env": "KC_ID=root-id\nKC_SECRET=root-secret\n"})
    env = config.settings_env
    assert env["GOTRUE_SITE_URL"] == "http://from-env.test"  # the environment wins over the files
    assert env["SUPALITE_JWT_SECRET"] == "file-secret-of-at-least-32-characters!"  # supabase/.env
    assert env["SUPALITE_PORT"] == "7000"  # weakly typed: a string port
    assert env["GOTRUE_EXTERNAL_KEYCLOAK_CLIENT_ID"] == "local-id"  # supabase/.env.local before the root's .env
    assert env["GOTRUE_EXTERNAL_KEYCLOAK_SECRET"] == "root-secret"
    assert config.warnings == []


def test_an_unset_env_value_stays_as_written_and_is_said(tmp_path: Path) -> None:
    config = read(tmp_path, 'project_id = "x"\n[auth]\nsite_url = "env(NOPE)"\n')
    assert config.settings_env["GOTRUE_SITE_URL"] == "env(NOPE)"
    assert config.warnings == [PREFIX + "environment variable is unset: NOPE ([auth] site_url)"]
    with pytest.raises(ConfigError, match=r"^\[api\] port must be an integer$"):
        read(tmp_path, 'project_id = "x"\n[api]\nport = "env(NOPE)"\n')


def test_an_empty_signing_keys_path_is_none_as_in_the_cli(tmp_path: Path) -> None:
    config = read(tmp_path, 'project_id = "x"\n[auth]\nsigning_keys_path = ""\n')
    assert "SUPALITE_JWT_KEYS_FILE" not in config.settings_env
    absolute = read(tmp_path, 'project_id = "x"\n[auth]\nsigning_keys_path = "/keys/signing.json"\n')
    assert absolute.settings_env["SUPALITE_JWT_KEYS_FILE"] == "/keys/signing.json"  # as the CLI, not under supabase/


def test_an_env_file_that_is_not_text_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "supabase").mkdir()
    (tmp_path / "supabase" / ".env").write_bytes(b"SECRET=\xff\xfe\n")
    with pytest.raises(ConfigError, match=r"^cannot read .*supabase/\.env: not UTF-8 text$"):
        read(tmp_path, 'project_id = "x"\n')


def test_supabase_variables_override_keys_as_the_cli_does(tmp_path: Path) -> None:
    config = read(tmp_path, 'project_id = "x"\n[auth]\nsite_url = "http://file.test"\n',
                  {"SUPABASE_AUTH_SITE_URL": "http://override.test", "SUPABASE_API_MAX_ROWS": "5",
                   "SUPABASE_AUTH_EMAIL_ENABLE_CONFIRMATIONS": "true"})
    env = config.settings_env
    assert (env["GOTRUE_SITE_URL"], env["PGRST_DB_MAX_ROWS"], env["GOTRUE_MAILER_AUTOCONFIRM"]) == (
        "http://override.test", "5", "false")


@pytest.mark.parametrize(("toml", "message"), [
    ('project_id = "x"\n[foo]\nbar = 1\n', r"^unknown table \[foo\] in supabase/config\.toml$"),
    ('project_id = "x"\nport = 1\n', r"^unknown key port in supabase/config\.toml$"),
    ('project_id = "x"\n[api]\nport = "eighty"\n', r"^\[api\] port must be an integer$"),
    ('project_id = "x"\n[api]\nport = 70000\n', r"^\[api\] port must be between 1 and 65535$"),
    ('project_id = "x"\n[api]\nschemas = "public"\nmax_rows = -1\n', r"^\[api\] max_rows must be at least 0$"),
    ('project_id = "x"\n[api]\nschemas = [1.5]\n', r"^\[api\] schemas must be a list of strings$"),
    ('project_id = "x"\napi = 3\n', r"^api must be a table$"),
    ('project_id = "x"\n[auth]\nenable_signup = "sometimes"\n', r"^\[auth\] enable_signup must be true or false$"),
    ('project_id = "x"\n[auth]\nsite_url = ["a"]\n', r"^\[auth\] site_url must be a string$"),
    ('project_id = "x"\n[auth]\npassword_requirements = "strong"\n', r"^\[auth\] password_requirements must be one of"),
    ('project_id = "x"\n[auth.sessions]\ntimebox = "1 day"\n', r"^\[auth\.sessions\] timebox must be a duration"),
    # Go's time.Duration holds 2562047h at most: ParseDuration refuses more (a timedelta could not hold it)
    ('project_id = "x"\n[auth.sessions]\ntimebox = "2562048h"\n', r"^\[auth\.sessions\] timebox must be a duration"),
    ('project_id = "x"\n[storage]\nfile_size_limit = "lots"\n', r"^\[storage\] file_size_limit must be a size"),
    ('project_id = "x"\n[db]\nmajor_version = 12\n', r"^\[db\] major_version 12 is not supported"),
    ('project_id = "x"\n[auth.mfa.totp]\nenroll_enabled = true\nverify_enabled = false\n',
     r"^\[auth\.mfa\.totp\] enroll_enabled requires verify_enabled$"),
    ('project_id = "x"\n[auth.external.github]\nenabled = true\n', r"^\[auth\.external\.github\] client_id must be set$"),
    ('project_id = "x"\n[auth.external."Git Hub"]\nenabled = true\n', r"^\[auth\.external\.Git Hub\]: a provider name"),
    ('project_id = "x"\n[auth.sms.test_otp]\n"555-0100" = "123456"\n', r"^\[auth\.sms\.test_otp\] 555-0100"),
    ('project_id = "x"\n[auth.hook.send_sms]\nenabled = true\nuri = "https://h.test"\nsecrets = "plain"\n',
     r"^\[auth\.hook\.send_sms\] secrets must be formatted"),
    ('project_id = "x"\n[auth.email.smtp]\nport = 587\n', r"^\[auth\.email\.smtp\] host must be set$"),
    ('project_id = ""\n', r"^project_id must be set"),
    ('project_id = "x"\n[api\n', r"^supabase/config\.toml: "),
])
def test_refusals_name_the_key_in_one_line(tmp_path: Path, toml: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        read(tmp_path, toml)
    assert "\n" not in str(caught.value)


def test_unsupported_keys_are_said_once_each_unless_left_at_the_template_value_or_disabled(tmp_path: Path) -> None:
    config = read(tmp_path, """
        project_id = "x"
        [api]
        tyop = 1
        [db]
        shadow_port = 54320
        [db.pooler]
        enabled = false
        pool_mode = "session"
        [db.settings]
        statement_timeout = "10s"
        [auth]
        enable_refresh_token_rotation = false
        refresh_token_reuse_interval = 10
        [auth.email]
        max_frequency = "1s"
        otp_expiry = 600
        [auth.email.template.invite]
        subject = "Join us"
        [auth.captcha]
        enabled = true
        provider = "hcaptcha"
        [auth.sms.twilio]
        enabled = false
        account_sid = "ignored: disabled"
        [auth.hook.custom_access_token]
        enabled = true
        uri = "pg-functions://postgres/public/hook"
        [auth.external.github]
        enabled = true
        client_id = "id"
        secret = "s"
        [auth.external.google]
        enabled = false
        client_id = ""
        [auth.third_party.clerk]
        enabled = false
        domain = "x.clerk.accounts.dev"
        [functions.hello]
        verify_jwt = false
        [experimental]
        orioledb_version = "15.1.0.150"
    """)
    assert [line.removeprefix(PREFIX) for line in config.warnings] == [
        "unknown key [api] tyop, ignored",
        "[db.settings] statement_timeout: not supported by supalite, ignored",
        "[auth] enable_refresh_token_rotation: not supported by supalite, ignored",
        "[auth.email] otp_expiry: not supported by supalite, ignored",
        "[auth.hook.custom_access_token]: only an http(s) send_sms hook is supported, ignored",
        "[auth.external.github]: supalite signs in with OpenID Connect providers only: set url to the provider's issuer",
        "[auth.captcha]: captcha is not checked by supalite, ignored",
        "[experimental] orioledb_version: not supported by supalite, ignored",
    ]
    assert config.settings_env["GOTRUE_EXTERNAL_GOOGLE_ENABLED"] == "false"
    assert "GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID" not in config.settings_env


def test_disabled_services_are_said_to_be_served_anyway(tmp_path: Path) -> None:
    config = read(tmp_path, 'project_id = "x"\n[realtime]\nenabled = false\n[studio]\nenabled = false\n')
    assert config.warnings == [PREFIX + "[realtime] enabled = false: realtime is always served"]


def test_load_settings_layers_config_toml_under_the_environment(tmp_path: Path) -> None:
    project(tmp_path, 'project_id = "x"\n[api]\nport = 6100\nmax_rows = 10\n[auth]\nenable_signup = false\n')
    settings = load_settings({"SUPALITE_PROJECT_DIR": str(tmp_path), "PGRST_DB_MAX_ROWS": "99"}, dotenv=None)
    assert settings.port == 6100 and settings.disable_signup
    assert settings.db_max_rows == 99  # the environment wins
    assert settings.data_dir == tmp_path.resolve() / "supabase" / ".supalite"
    assert settings.db_schemas == ("public", "graphql_public")
    # outside a project folder nothing changes
    plain = load_settings({"SUPALITE_PROJECT_DIR": str(tmp_path / "supabase")}, dotenv=None)
    assert plain.port == 8000 and plain.db_max_rows is None and plain.data_dir.name == ".data"
    # a broken config.toml stops the settings with its one line
    (tmp_path / "supabase" / "config.toml").write_text('project_id = "x"\n[nope]\n')
    with pytest.raises(ConfigError, match=r"unknown table \[nope\]"):
        load_settings({"SUPALITE_PROJECT_DIR": str(tmp_path)}, dotenv=None)


def test_a_server_run_in_a_project_folder_follows_its_config_toml(database_url: str) -> None:
    folder = harness.scratch_dir("supalite-config-")
    try:
        project(folder, """
            project_id = "cfg"
            [api]
            max_rows = 2
            [auth]
            enable_signup = false
            minimum_password_length = 10
            password_requirements = "letters_digits"
            [auth.sms]
            enable_signup = true
            [auth.sms.test_otp]
            15555550100 = "123456"
        """)
        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute("create table public.cfg_items (id int primary key)")
            conn.execute("insert into public.cfg_items select generate_series(1, 5)")
            conn.execute("grant select on public.cfg_items to anon")
        server = harness.start_server(database_url, args=["--no-migrate"],
                                      extra_env={"SUPALITE_PROJECT_DIR": str(folder)})
        try:
            anon = {"apikey": server.anon_key, "Authorization": f"Bearer {server.anon_key}"}
            admin = {"apikey": server.service_key, "Authorization": f"Bearer {server.service_key}"}
            with httpx.Client(base_url=server.url, timeout=30) as http:
                rows = http.get("/rest/v1/cfg_items?select=id&order=id", headers=anon)
                assert rows.status_code == 200 and rows.json() == [{"id": 1}, {"id": 2}]  # [api] max_rows
                settings = http.get("/auth/v1/settings", headers=anon).json()
                assert settings["disable_signup"] is True and settings["external"]["phone"] is True
                signup = http.post("/auth/v1/signup", headers=anon,
                                   json={"email": "new@example.test", "password": "long-enough-1"})
                assert signup.status_code == 422 and signup.json()["error_code"] == "signup_disabled"
                for password, reasons in (("short1", ["length"]), ("no-digits-here", ["characters"])):
                    weak = http.post("/auth/v1/admin/users", headers=admin,
                                     json={"email": "a@example.test", "password": password})
                    assert weak.status_code == 422 and weak.json()["weak_password"]["reasons"] == reasons
                created = http.post("/auth/v1/admin/users", headers=admin,
                                    json={"email": "a@example.test", "password": "digits-123456"})
                assert created.status_code == 200
        finally:
            server.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _rsa_jwk(kid: str) -> dict[str, str]:
    return {**json.loads(RSAAlgorithm.to_jwk(rsa.generate_private_key(public_exponent=65537, key_size=2048))),
            "kid": kid, "alg": "RS256"}


def test_signing_keys_path_signs_the_status_keys_and_user_tokens(database_url: str) -> None:
    """As `supabase start` with signing_keys_path: the anon and service_role keys are JWTs signed
    with the file's first key (its kid in the header), accepted by every API; user tokens are
    signed with it too and verify against /auth/v1/.well-known/jwks.json."""
    folder = harness.scratch_dir("supalite-signing-")
    first = _rsa_jwk("project-rs256")
    second = {**json.loads(ECAlgorithm.to_jwk(ec.generate_private_key(ec.SECP256R1()))), "kid": "older-es256"}
    try:
        project(folder, 'project_id = "keys"\n[auth]\nsigning_keys_path = "./signing_keys.json"\n',
                files={"supabase/signing_keys.json": json.dumps([first, second])})
        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute("create table public.keys_open (id int primary key)")
            conn.execute("create table public.keys_closed (id int primary key)")
            conn.execute("alter table public.keys_closed enable row level security")  # no policy: none for anon
            conn.execute("insert into public.keys_open values (1); insert into public.keys_closed values (2)")
            conn.execute("grant select on public.keys_open, public.keys_closed to anon, service_role")
        server = harness.start_server(database_url, args=["--no-migrate"],
                                      extra_env={"SUPALITE_PROJECT_DIR": str(folder)})
        try:
            values = status_values(server.settings)
            anon, service = values["auth.anon_key"], values["auth.service_role_key"]
            assert (anon, service) == (server.anon_key, server.service_key)
            assert status_values(server.settings)["auth.anon_key"] == anon  # the same at every call
            for key, role in ((anon, "anon"), (service, "service_role")):
                assert pyjwt.get_unverified_header(key) == {"alg": "RS256", "kid": "project-rs256", "typ": "JWT"}
                assert pyjwt.decode(key, options={"verify_signature": False}) == {
                    "iss": "supabase-demo", "role": role, "exp": 1983812996}
            with httpx.Client(base_url=server.url, timeout=30) as http:
                jwks = pyjwt.PyJWKSet.from_dict(http.get("/auth/v1/.well-known/jwks.json").json())
                assert [key.key_id for key in jwks.keys] == ["project-rs256", "older-es256"]
                public = jwks["project-rs256"].key
                assert pyjwt.decode(anon, public, algorithms=["RS256"])["role"] == "anon"

                def rest(table: str, key: str) -> httpx.Response:
                    return http.get(f"/rest/v1/{table}?select=id", headers={"apikey": key, "Authorization": f"Bearer {key}"})

                assert rest("keys_open", anon).json() == [{"id": 1}]
                assert rest("keys_closed", anon).json() == []  # RLS applies to anon
                assert rest("keys_closed", service).json() == [{"id": 2}]  # service_role bypasses it
                # a key of the same kid signed by another RSA key is refused
                forged = pyjwt.encode({"iss": "supabase-demo", "role": "service_role", "exp": 1983812996},
                                      RSAAlgorithm.from_jwk(json.dumps(_rsa_jwk("x"))), algorithm="RS256",
                                      headers={"kid": "project-rs256"})
                assert rest("keys_closed", forged).status_code == 401
                storage = http.get("/storage/v1/bucket", headers={"apikey": service, "Authorization": f"Bearer {service}"})
                assert storage.status_code == 200
                signup = http.post("/auth/v1/signup", headers={"apikey": anon},
                                   json={"email": "keys@example.test", "password": "secret-pass-1"})
                assert signup.status_code == 200, signup.text
                token = signup.json()["access_token"]
                assert pyjwt.get_unverified_header(token)["kid"] == "project-rs256"
                claims = pyjwt.decode(token, public, algorithms=["RS256"], audience="authenticated")
                assert claims["email"] == "keys@example.test" and claims["role"] == "authenticated"
                me = http.get("/auth/v1/user", headers={"apikey": anon, "Authorization": f"Bearer {token}"})
                assert me.status_code == 200
            if shutil.which("node"):  # supabase-js's getClaims, verifying the token locally
                counts = run_node_suite(Path(__file__).parent / "signing_keys.suite.mjs", server, KID="project-rs256")
                assert counts["fail"] == 0 and counts["pass"] == 2
        finally:
            server.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
