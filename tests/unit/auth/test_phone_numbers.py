"""Phone numbers as GoTrue validates them (server/auth/phone_numbers.py)."""

from __future__ import annotations

import pytest

from server.auth.phone_numbers import format_phone, is_valid_phone


@pytest.mark.parametrize(("raw", "valid"), [
    ("+15555550100", True), ("15555550100", True), ("+1 555 555 0100", True), ("12", True),
    ("+123456789012345", True), ("+1234567890123456", False), ("1", False), ("+0123456789", False),
    ("", False), ("+", False), ("abc", False), ("+1555555010a", False), ("15555550100\n", False),
    ("++15555550100", False), ("+1-555-555-0100", False), ("\uff11\uff15\uff15\uff15", False),
])
def test_e164_as_gotrue_validates(raw: str, valid: bool) -> None:
    assert is_valid_phone(format_phone(raw)) is valid
