"""server.rest.headers: the headers a database function sets enter the response safe."""

from __future__ import annotations

import pytest

from server.rest import errors
from server.rest.headers import function_headers, valid_headers
from server.rest.response import guc_overrides


def test_names_are_lower_cased_and_framing_left_out() -> None:
    assert function_headers([("X-Brew", "tea"), ("Content-Length", "0"), ("Transfer-Encoding", "chunked"),
                             ("Access-Control-Allow-Origin", "https://app.example")]) == {
        "x-brew": "tea", "access-control-allow-origin": "https://app.example"}


@pytest.mark.parametrize("name, value", [("X-A", "b\r\nSet-Cookie: s=1"), ("X-A", "b\nc"), ("X A", "b"),
                                         ("X-A", "nul\x00"), ("", ""), ("", "x")])
def test_what_would_split_or_break_a_response_is_refused(name: str, value: str) -> None:
    with pytest.raises(ValueError):
        function_headers([(name, value)])


def test_tabs_and_non_ascii_letters_are_valid_values() -> None:
    assert valid_headers("x-note", "a\tb caf\xe9") and function_headers([("X-Note", "")]) == {"x-note": ""}


def test_response_headers_gucs_go_through_it() -> None:
    assert guc_overrides('[{"X-Brew": "tea"}, {"Content-Length": "9"}]', "418") == (418, {"x-brew": "tea"})
    for bad in ('[{"": ""}]', '[{"x-a": "b\\r\\nc: d"}]'):
        with pytest.raises(errors.ApiError) as caught:
            guc_overrides(bad, None)
        assert caught.value.code == "PGRST111"
