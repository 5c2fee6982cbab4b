from pathlib import Path

import pytest

from server.core.config import SECTIONS, SETTINGS, ConfigError, OAuthProvider, Settings, section_of
from server.provision.settings import load_settings


def test_defaults_match_the_settings_table() -> None:
    settings = load_settings({}, dotenv=None)
    assert settings.port == 8000 and settings.host == "127.0.0.1"
    assert settings.uses_demo_secret
    assert settings.db_schemas == ("public",)
    assert set(SETTINGS) | {"app_settings", "auth_providers"} == set(Settings.__dataclass_fields__)
    assert all(section_of(setting) in SECTIONS for setting in SETTINGS.values())


def test_app_settings_are_collected_not_refused() -> None:
    settings = load_settings({"SUPALITE_APP_CONTACT_ADMIN_EMAIL": "a@b.c"}, dotenv=None)
    assert settings.app_settings == {"contact_admin_email": "a@b.c"}
    with pytest.raises(ConfigError, match="SUPALITE_APP_BAD-NAME"):
        load_settings({"SUPALITE_APP_BAD-NAME": "x"}, dotenv=None)


def test_unknown_supalite_variable_is_refused() -> None:
    with pytest.raises(ConfigError, match="unknown setting SUPALITE_PROT"):
        load_settings({"SUPALITE_PROT": "1"}, dotenv=None)


def test_bad_values_name_the_variable() -> None:
    with pytest.raises(ConfigError, match="SUPALITE_PORT"):
        load_settings({"SUPALITE_PORT": "eighty"}, dotenv=None)
    with pytest.raises(ConfigError, match="STORAGE_BACKEND"):
        load_settings({"STORAGE_BACKEND": "ftp"}, dotenv=None)


def test_dotenv_is_read_and_environment_wins(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("# comment\nSUPALITE_PORT=9000\nSUPALITE_WORKERS='3'\n")
    settings = load_settings({"SUPALITE_PORT": "9100"}, dotenv=env_file)
    assert (settings.port, settings.workers) == (9100, 3)


def test_auth_providers_are_read_from_gotrue_external_variables() -> None:
    settings = load_settings({
        "GOTRUE_EXTERNAL_KEYCLOAK_ENABLED": "true", "GOTRUE_EXTERNAL_KEYCLOAK_CLIENT_ID": "web,ios",
        "GOTRUE_EXTERNAL_KEYCLOAK_SECRET": "s", "GOTRUE_EXTERNAL_KEYCLOAK_URL": "http://idp.test/realms/x",
        "GOTRUE_EXTERNAL_LINKEDIN_OIDC_CLIENT_ID": "li", "GOTRUE_EXTERNAL_KEYCLOAK_API_URL": "ignored",
        # not providers: settings of their own
        "GOTRUE_EXTERNAL_EMAIL_ENABLED": "true", "GOTRUE_EXTERNAL_PHONE_ENABLED": "true",
        "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "false",
    }, dotenv=None)
    assert settings.auth_providers == {
        "keycloak": OAuthProvider("keycloak", enabled=True, client_id=("web", "ios"), secret="s",
                                  url="http://idp.test/realms/x"),
        "linkedin_oidc": OAuthProvider("linkedin_oidc", client_id=("li",)),
    }
    assert settings.phone_enabled and not settings.anonymous_users_enabled
    with pytest.raises(ConfigError, match="GOTRUE_EXTERNAL_GITHUB_ENABLED"):
        load_settings({"GOTRUE_EXTERNAL_GITHUB_ENABLED": "maybe"}, dotenv=None)


def test_gotrue_value_forms() -> None:
    settings = load_settings({
        "GOTRUE_SMS_TEST_OTP": "+15555550100:123456, 15555550101:000111",
        "GOTRUE_PASSWORD_REQUIRED_CHARACTERS": "abc:ABC:\\::0123",
        "GOTRUE_PASSWORD_MIN_LENGTH": "4", "GOTRUE_SMS_OTP_LENGTH": "12",
        "GOTRUE_EXTERNAL_FLOW_STATE_EXPIRY_DURATION": "10m", "GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION": "60",
    }, dotenv=None)
    assert settings.sms_test_otp == {"15555550100": "123456", "15555550101": "000111"}
    assert settings.password_required_characters == ("abc", "ABC", ":", "0123")
    # GoTrue's floors and ranges
    assert (settings.password_min_length, settings.sms_otp_length) == (6, 6)
    assert (settings.flow_state_expiry, settings.mfa_challenge_expiry) == (600.0, 300.0)
    with pytest.raises(ConfigError, match="GOTRUE_SMS_TEST_OTP"):
        load_settings({"GOTRUE_SMS_TEST_OTP": "15555550100=123456"}, dotenv=None)
    with pytest.raises(ConfigError, match="GOTRUE_HOOK_SEND_SMS_URI"):
        load_settings({"GOTRUE_SMS_PROVIDER": "hook"}, dotenv=None)


def test_the_configuration_doc_lists_every_setting() -> None:
    doc = (Path(__file__).parents[3] / "docs" / "configuration.md").read_text()
    missing = [s.env for s in SETTINGS.values() if f"| `{s.env}` |" not in doc]
    assert missing == [], "docs/configuration.md lacks rows for these settings: run `supalite config`"
