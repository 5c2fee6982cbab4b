"""GoTrue's checkPasswordStrength from GOTRUE_PASSWORD_MIN_LENGTH and _REQUIRED_CHARACTERS."""

from __future__ import annotations

import pytest

from server.auth.errors import AuthError
from server.auth.passwords import check_strength, strength_error
from server.core.config import Settings
from server.provision.settings import load_settings

SETS = ("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789")


def refusal(settings: Settings, password: str) -> AuthError:
    with pytest.raises(AuthError) as err:
        check_strength(settings, password)
    return err.value


def test_length_is_counted_in_bytes_as_go_does() -> None:
    settings = Settings(password_min_length=8)
    err = refusal(settings, "short")
    assert (err.status, err.code, err.message) == (422, "weak_password", "Password should be at least 8 characters.")
    assert err.extra == {"weak_password": {"reasons": ["length"]}}
    check_strength(settings, "éééé")  # 4 characters, 8 bytes
    check_strength(settings, "12345678")


def test_every_set_must_give_a_character_and_both_reasons_are_named() -> None:
    settings = Settings(password_min_length=10, password_required_characters=SETS)
    err = refusal(settings, "abcDEF")
    assert err.extra == {"weak_password": {"reasons": ["length", "characters"]}}
    assert err.message == ("Password should be at least 10 characters. Password should contain at least one"
                           " character of each: abcdefghijklmnopqrstuvwxyz, ABCDEFGHIJKLMNOPQRSTUVWXYZ, 0123456789.")
    assert refusal(settings, "abcdefGHIJKL").extra == {"weak_password": {"reasons": ["characters"]}}
    check_strength(settings, "abcdefGHIJ1")


def test_the_setting_parses_sets_and_escaped_colons() -> None:
    settings = load_settings({"GOTRUE_PASSWORD_REQUIRED_CHARACTERS": r"abc:\:;", "GOTRUE_PASSWORD_MIN_LENGTH": "2"},
                             dotenv=None)
    assert settings.password_required_characters == ("abc", ":;")
    assert refusal(settings, "abcdef").extra == {"weak_password": {"reasons": ["characters"]}}
    check_strength(settings, "a:bcdef")


def test_a_minimum_under_six_is_six() -> None:
    assert refusal(Settings(password_min_length=1), "12345").message == "Password should be at least 6 characters."


def test_longer_than_bcrypt_takes_is_a_validation_error() -> None:
    err = refusal(Settings(), "x" * 73)
    assert (err.status, err.code) == (400, "validation_failed")
    assert strength_error(Settings(), "x" * 72) is None
