"""go_quote: Go's strconv.Quote, which GoTrue's messages use to show a value the caller sent."""

from __future__ import annotations

import pytest

from server.auth.errors import go_quote


@pytest.mark.parametrize(("text", "quoted"), [
    ("plain", '"plain"'),
    ('say "hi"\\', '"say \\"hi\\"\\\\"'),
    ("a\nb\tc\r", '"a\\nb\\tc\\r"'),
    ("\x00\x7f", '"\\x00\\x7f"'),
    ("caf\u00e9 \u2603", '"caf\u00e9 \u2603"'),  # printable non-ASCII is kept
    ("\u200b\U000e0001", '"\\u200b\\U000e0001"'),  # not printable: escaped, 4 or 8 hex digits
])
def test_go_quote_as_strconv_quote(text: str, quoted: str) -> None:
    assert go_quote(text) == quoted
