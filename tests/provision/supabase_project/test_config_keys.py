"""Every `[auth...]` key of the Supabase CLI's config.toml is either honoured (it sets a setting the
server implements) or warned (one line when it asks for something): none is silently ignored.

The lists below are the CLI's keys (apps/cli-go/pkg/config/auth.go's struct and the `supabase init`
template, templates/config.toml, in supabase/cli), each with its kind. A key the CLI adds later is
in neither list: config_toml.py then warns it as unknown (the last tests), and once it is handled it
belongs in one of the lists.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from server.core.config import SETTINGS, Settings
from server.provision.settings import load_settings
from server.provision.supabase_project import config_toml
from server.provision.supabase_project.config_toml import read_project_config
from server.provision.supabase_project.layout import SupabaseProject

PREFIX = "supabase/config.toml: "
HOOK_SECRET = "v1,whsec_aGVsbG8td29ybGQtdGhpcy1pcy1hLXNlY3JldA=="
SMTP = {"auth.email.smtp.host": "smtp.example.test", "auth.email.smtp.port": 587}
PHONE_MFA = {"auth.mfa.phone.verify_enabled": True}
OIDC = {"auth.external.keycloak.enabled": True, "auth.external.keycloak.client_id": "web",
        "auth.external.keycloak.url": "http://idp.example.test/realms/x"}
SEND_SMS = {"auth.hook.send_sms.enabled": True, "auth.hook.send_sms.uri": "https://hooks.example.test/sms",
            "auth.hook.send_sms.secrets": HOOK_SECRET}

# key -> (a value other than the template's, the Settings field it sets, the keys it needs beside it).
# A field path may go into a mapping: auth_providers.keycloak.client_id.
HONOURED: dict[str, tuple[Any, str, dict[str, Any]]] = {
    "auth.site_url": ("http://localhost:5173", "site_url", {}),
    "auth.additional_redirect_urls": (["http://localhost:5173/**"], "uri_allow_list", {}),
    "auth.jwt_expiry": (600, "jwt_expiry", {}),
    "auth.enable_signup": (False, "disable_signup", {}),
    "auth.email.template.invite.subject": ("Join us", "mailer_subjects_invite", {}),
    # relative to the folder holding supabase/, as the CLI; the file must exist
    "auth.email.template.invite.content_path": (str(Path(__file__).resolve()), "mailer_templates_invite", {}),
    "auth.enable_anonymous_sign_ins": (True, "anonymous_users_enabled", {}),
    "auth.enable_manual_linking": (True, "manual_linking_enabled", {}),
    "auth.minimum_password_length": (12, "password_min_length", {}),
    "auth.password_requirements": ("letters_digits", "password_required_characters", {}),
    "auth.signing_keys_path": ("./signing_keys.json", "jwt_keys_file", {}),
    "auth.jwt_secret": ("a-project-secret-of-at-least-32-characters", "jwt_secret", {}),
    "auth.anon_key": ("an.anon.key", "anon_key", {}),
    "auth.service_role_key": ("a.service.key", "service_role_key", {}),
    "auth.passkey.enabled": (True, "passkey_enabled", {}),
    "auth.webauthn.rp_display_name": ("My app", "webauthn_rp_display_name", {}),
    "auth.webauthn.rp_id": ("app.example.test", "webauthn_rp_id", {}),
    "auth.webauthn.rp_origins": (["https://app.example.test"], "webauthn_rp_origins", {}),
    "auth.rate_limit.email_sent": (7, "rate_limit_email_sent", SMTP),  # counted with SMTP only, as the CLI
    "auth.rate_limit.sms_sent": (8, "rate_limit_sms_sent", {}),
    "auth.rate_limit.anonymous_users": (9, "rate_limit_anonymous_users", {}),
    "auth.rate_limit.token_refresh": (10, "rate_limit_token_refresh", {}),
    "auth.rate_limit.sign_in_sign_ups": (11, "rate_limit_sign_in_sign_ups", {}),
    "auth.rate_limit.token_verifications": (12, "rate_limit_token_verifications", {}),
    "auth.email.enable_signup": (False, "email_enabled", {}),
    "auth.email.enable_confirmations": (True, "mailer_autoconfirm", {}),
    "auth.email.secure_password_change": (True, "secure_password_change", {}),
    "auth.email.max_frequency": ("7s", "smtp_max_frequency", {}),
    "auth.email.smtp.enabled": (False, "smtp_url", SMTP),  # a table without `enabled` is enabled
    "auth.email.smtp.host": ("smtp2.example.test", "smtp_url", SMTP),
    "auth.email.smtp.port": (2525, "smtp_url", SMTP),
    "auth.email.smtp.user": ("apikey", "smtp_url", SMTP),
    "auth.email.smtp.pass": ("p@ss", "smtp_url", {**SMTP, "auth.email.smtp.user": "apikey"}),
    "auth.sms.enable_signup": (True, "phone_enabled", {}),
    "auth.sms.enable_confirmations": (True, "sms_autoconfirm", {}),
    "auth.sms.template": ("Code: {{ .Code }}", "sms_template", {}),
    "auth.sms.max_frequency": ("9s", "sms_max_frequency", {}),
    "auth.sms.test_otp.15555550100": ("123456", "sms_test_otp", {}),
    "auth.mfa.max_enrolled_factors": (3, "mfa_max_enrolled_factors", {}),
    "auth.mfa.totp.enroll_enabled": (True, "mfa_totp_enroll_enabled", {"auth.mfa.totp.verify_enabled": True}),
    "auth.mfa.totp.verify_enabled": (True, "mfa_totp_verify_enabled", {}),
    "auth.mfa.phone.enroll_enabled": (True, "mfa_phone_enroll_enabled", PHONE_MFA),
    "auth.mfa.phone.verify_enabled": (True, "mfa_phone_verify_enabled", {}),
    # the CLI sets these three only with phone MFA enrolled or verified
    "auth.mfa.phone.otp_length": (8, "mfa_phone_otp_length", PHONE_MFA),
    "auth.mfa.phone.template": ("MFA code: {{ .Code }}", "mfa_phone_template", PHONE_MFA),
    "auth.mfa.phone.max_frequency": ("11s", "mfa_phone_max_frequency", PHONE_MFA),
    "auth.mfa.web_authn.enroll_enabled": (True, "mfa_web_authn_enroll_enabled", {"auth.mfa.web_authn.verify_enabled": True}),
    "auth.mfa.web_authn.verify_enabled": (True, "mfa_web_authn_verify_enabled", {}),
    "auth.sessions.timebox": ("24h", "sessions_timebox", {}),
    "auth.sessions.inactivity_timeout": ("8h", "sessions_inactivity_timeout", {}),
    "auth.hook.send_sms.enabled": (True, "sms_provider", {**SEND_SMS, "auth.hook.send_sms.enabled": False}),
    "auth.hook.send_sms.uri": ("https://other.example.test/sms", "hook_send_sms_uri", SEND_SMS),
    "auth.hook.send_sms.secrets": ("v1,whsec_b3RoZXItc2VjcmV0LW9mLWVub3VnaC1sZW5ndGg=", "hook_send_sms_secrets", SEND_SMS),
    "auth.external.keycloak.enabled": (True, "auth_providers.keycloak.enabled",
                                       {**OIDC, "auth.external.keycloak.enabled": False}),
    "auth.external.keycloak.client_id": ("mobile", "auth_providers.keycloak.client_id", OIDC),
    "auth.external.keycloak.secret": ("shh", "auth_providers.keycloak.secret", OIDC),
    "auth.external.keycloak.url": ("http://idp.example.test/realms/y", "auth_providers.keycloak.url", OIDC),
    "auth.external.keycloak.redirect_uri": ("http://localhost:5173/cb", "auth_providers.keycloak.redirect_uri", OIDC),
    "auth.external.keycloak.skip_nonce_check": (True, "auth_providers.keycloak.skip_nonce_check", OIDC),
    "auth.oauth_server.enabled": (True, "oauth_server_enabled", {}),
    "auth.oauth_server.allow_dynamic_registration": (True, "oauth_server_allow_dynamic_registration",
                                                     {"auth.oauth_server.enabled": True}),
}

_HOOKS = ("mfa_verification_attempt", "password_verification_attempt", "custom_access_token", "send_email",
          "before_user_created")
_SMS_PROVIDERS = {"twilio": ("account_sid", "message_service_sid", "auth_token"),
                  "twilio_verify": ("account_sid", "message_service_sid", "auth_token"),
                  "messagebird": ("originator", "access_key"), "textlocal": ("sender", "api_key"),
                  "vonage": ("from", "api_key", "api_secret")}
_THIRD_PARTY = {"firebase": ("project_id",), "auth0": ("tenant", "tenant_region"),
                "aws_cognito": ("user_pool_id", "user_pool_region"), "clerk": ("domain",), "workos": ("issuer_url",)}
_TEMPLATE_FIELDS = ("subject", "content", "content_path")


def _table_keys(table: str, keys: tuple[str, ...], value: Any = "x") -> dict[str, tuple[Any, dict[str, Any]]]:
    """A table warned as a whole once enabled: its `enabled`, then each key of it in the enabled table."""
    on = {f"{table}.enabled": True}
    return {f"{table}.enabled": (True, {}), **{f"{table}.{key}": (value, on) for key in keys}}


# key -> (a value other than the template's, the keys it needs beside it): each gets a warning line
# naming it, or naming its table when the table as a whole is not supported.
WARNED: dict[str, tuple[Any, dict[str, Any]]] = {
    "auth.enabled": (False, {}),  # auth is always served
    "auth.external_url": ("https://auth.example.test/auth/v1", {}),
    "auth.jwt_issuer": ("https://issuer.example.test", {}),
    "auth.enable_refresh_token_rotation": (False, {}),
    "auth.refresh_token_reuse_interval": (5, {}),
    "auth.publishable_key": ("sb_publishable_x", {}),
    "auth.secret_key": ("sb_secret_x", {}),
    "auth.rate_limit.web3": (5, {}),
    **_table_keys("auth.captcha", ("provider", "secret")),
    "auth.email.double_confirm_changes": (False, {}),
    "auth.email.otp_length": (8, {}),
    "auth.email.otp_expiry": (600, {}),
    "auth.email.template.invite.content": ("x", {}),  # only content_path is read from config.toml
    **_table_keys("auth.email.notification.password_changed", _TEMPLATE_FIELDS),
    "auth.email.smtp.admin_email": ("ops@example.test", SMTP),
    "auth.email.smtp.sender_name": ("Ops", SMTP),
    **{key: spec for provider, keys in _SMS_PROVIDERS.items()
       for key, spec in _table_keys(f"auth.sms.{provider}", keys).items()},
    **{key: spec for hook in _HOOKS
       for key, spec in _table_keys(f"auth.hook.{hook}", ("uri", "secrets"), "https://hooks.example.test").items()},
    "auth.oauth_server.authorization_url_path": ("/consent", {"auth.oauth_server.enabled": True}),
    "auth.external.keycloak.email_optional": (True, OIDC),
    "auth.web3.solana.enabled": (True, {}),
    "auth.web3.ethereum.enabled": (True, {}),
    **{key: spec for name, keys in _THIRD_PARTY.items()
       for key, spec in _table_keys(f"auth.third_party.{name}", keys).items()},
}


# -- writing and reading a config.toml ----------------------------------------------------------

def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(value)  # a TOML basic string


def _toml(keys: Mapping[str, Any]) -> str:
    """config.toml text setting dotted `keys` (auth.mfa.phone.otp_length), one table each."""
    tables: dict[str, dict[str, Any]] = {}
    for path, value in keys.items():
        table, _, key = path.rpartition(".")
        tables.setdefault(table, {})[key] = value
    lines = ['project_id = "keys"']
    for table, values in tables.items():
        lines.append(f"[{table}]")
        lines += [f'"{key}" = {_toml_value(value)}' for key, value in values.items()]
    return "\n".join(lines) + "\n"


def _project(tmp_path: Path, keys: Mapping[str, Any]) -> Path:
    (tmp_path / "supabase").mkdir(parents=True, exist_ok=True)
    (tmp_path / "supabase" / "config.toml").write_text(_toml(keys))
    return tmp_path


def _warnings(folder: Path) -> list[str]:
    return [line.removeprefix(PREFIX) for line in read_project_config(SupabaseProject(folder.resolve()), {}).warnings]


def _setting(folder: Path, path: str) -> Any:
    value: Any = load_settings({"SUPALITE_PROJECT_DIR": str(folder)}, dotenv=None)
    for part in path.split("."):
        value = value[part] if isinstance(value, Mapping) else getattr(value, part)
    return value


def _where(key: str) -> tuple[str, str]:
    """auth.email.otp_length -> ("[auth.email]", "otp_length")"""
    table, _, leaf = key.rpartition(".")
    return f"[{table}]", leaf


# -- the tests ----------------------------------------------------------------------------------

def test_the_lists_hold_every_auth_key_of_the_cli_template_once() -> None:
    assert not set(HONOURED) & set(WARNED)
    listed = {_generic(key) for key in (*HONOURED, *WARNED)}

    def leaves(table: Mapping[str, Any], path: str) -> list[str]:
        return [leaf for key, value in table.items()
                for leaf in (leaves(value, f"{path}.{key}") if isinstance(value, dict) else [f"{path}.{key}"])]

    template_keys = {_generic(key) for key in leaves(config_toml.TEMPLATE["auth"], "auth")}
    assert template_keys - listed == set()


def _generic(key: str) -> str:
    """Named tables stand for any name: [auth.external.apple] is [auth.external.keycloak]'s kind."""
    parts = key.split(".")
    if parts[:2] == ["auth", "external"] and len(parts) == 4:
        parts[2] = "<provider>"
    if parts[:3] == ["auth", "sms", "test_otp"]:
        parts[3:] = ["<phone>"]
    return ".".join(parts)


def test_every_honoured_key_reaches_its_setting(tmp_path: Path) -> None:
    fields = {field for field in SETTINGS} | {"auth_providers"}
    problems = []
    for index, (key, (value, setting, needs)) in enumerate(HONOURED.items()):
        if setting.split(".")[0] not in fields:
            problems.append(f"{key}: {setting} is not a setting of the server")
            continue
        before = _project(tmp_path / f"{index}-before", needs)
        after = _project(tmp_path / f"{index}-after", {**needs, key: value})
        if _setting(before, setting) == _setting(after, setting):
            problems.append(f"{key}: {setting} did not change")
        table, leaf = _where(key)
        said = [line for line in _warnings(after) if line.startswith((f"{table} {leaf}", f"unknown key {table} {leaf}"))]
        if said:
            problems.append(f"{key}: honoured, yet warned: {said}")
    assert problems == []


def test_every_warned_key_is_said(tmp_path: Path) -> None:
    problems = []
    for index, (key, (value, needs)) in enumerate(WARNED.items()):
        folder = _project(tmp_path / str(index), {**needs, key: value})
        table, leaf = _where(key)
        lines = _warnings(folder)
        # the key itself, or its table as a whole ("[auth.captcha]: captcha is not checked ...")
        if not any(line.startswith((f"{table} {leaf}", f"{table}:")) for line in lines):
            problems.append(f"{key}: nothing said ({lines})")
        if any(line.startswith("unknown key") for line in lines):
            problems.append(f"{key}: a key of the CLI taken for an unknown one ({lines})")
    assert problems == []


def test_the_template_values_ask_for_nothing(tmp_path: Path) -> None:
    def leaves(table: Mapping[str, Any], path: str) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for key, value in table.items():
            found.update(leaves(value, f"{path}.{key}") if isinstance(value, dict) else {f"{path}.{key}": value})
        return found

    assert _warnings(_project(tmp_path, leaves(config_toml.TEMPLATE["auth"], "auth"))) == []


UNKNOWN_IN = {
    "auth": {}, "auth.passkey": {}, "auth.webauthn": {}, "auth.rate_limit": {}, "auth.email": {},
    "auth.email.smtp": SMTP, "auth.sms": {}, "auth.mfa": {}, "auth.mfa.totp": {}, "auth.mfa.phone": {},
    "auth.mfa.web_authn": {}, "auth.sessions": {}, "auth.hook.send_sms": SEND_SMS,
    "auth.oauth_server": {"auth.oauth_server.enabled": True}, "auth.external.keycloak": OIDC,
}


@pytest.mark.parametrize("table", UNKNOWN_IN)
def test_a_key_in_neither_list_is_warned_as_unknown(tmp_path: Path, table: str) -> None:
    lines = _warnings(_project(tmp_path, {**UNKNOWN_IN[table], f"{table}.future_key": 1}))
    assert f"unknown key [{table}] future_key, ignored" in lines


def test_an_unknown_auth_table_is_warned(tmp_path: Path) -> None:
    folder = _project(tmp_path, {"auth.future_table.enabled": True})
    assert _warnings(folder) == ["unknown key [auth] future_table, ignored"]


def test_a_real_project_with_the_new_keys_loads(tmp_path: Path) -> None:
    """The keys supabase-js's own test project sets: honoured, with nothing said about them."""
    folder = _project(tmp_path, {})
    (folder / "supabase" / "config.toml").write_text(textwrap.dedent("""
        project_id = "x"
        [auth.passkey]
        enabled = true
        [auth.webauthn]
        rp_display_name = "Auth project"
        rp_id = "localhost"
        rp_origins = ["http://localhost:3000", "http://localhost:5173"]
        [auth.sms]
        max_frequency = "1s"
        [auth.mfa.phone]
        enroll_enabled = true
        verify_enabled = true
        max_frequency = "1s"
        [auth.oauth_server]
        enabled = true
        allow_dynamic_registration = true
    """))
    assert _warnings(folder) == []
    settings: Settings = load_settings({"SUPALITE_PROJECT_DIR": str(folder)}, dotenv=None)
    assert settings.passkey_enabled and settings.webauthn_rp_id == "localhost"
    assert settings.webauthn_rp_origins == ("http://localhost:3000", "http://localhost:5173")
    assert settings.webauthn_rp_display_name == "Auth project"
    assert settings.sms_max_frequency == 1 and settings.mfa_phone_max_frequency == 1
    assert settings.smtp_max_frequency == 1  # the template's "1s", which `supabase start` passes on
    assert settings.oauth_server_enabled and settings.oauth_server_allow_dynamic_registration
    assert settings.rate_limit_by == "header"  # as `supabase start`: no GOTRUE_RATE_LIMIT_HEADER
