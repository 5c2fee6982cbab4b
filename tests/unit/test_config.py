from pathlib import Path

import pytest

from server.config import SETTINGS, ConfigError, Settings, load_settings


def test_defaults_match_the_settings_table() -> None:
    settings = load_settings({}, dotenv=None)
    assert settings.port == 8000 and settings.host == "127.0.0.1"
    assert settings.uses_demo_secret
    assert settings.db_schemas == ("public",)
    assert set(SETTINGS) | {"app_settings"} == set(Settings.__dataclass_fields__)


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
