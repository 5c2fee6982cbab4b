"""Object name rules and Range parsing, without a server."""

from __future__ import annotations

import pytest

from server.storage import errors
from server.storage.media import parse_range
from server.storage.paths import is_valid_object_name, validate_bucket_name
from server.storage.service import mime_allowed


@pytest.mark.parametrize("name", ["a.txt", "folder/sub/file.pdf", "été/ü.png", "a b/(1).txt", "x" * 255])
def test_valid_names(name: str) -> None:
    assert is_valid_object_name(name)


@pytest.mark.parametrize("name", ["", "../a", "a/../b", "a/./b", "/abs", "a//b", "a/", "a\x00b", "a\nb", "a\\b",
                                  "x" * 256, "/".join(["abc"] * 300)])
def test_invalid_names(name: str) -> None:
    assert not is_valid_object_name(name)


@pytest.mark.parametrize("name", ["", ".", "..", "a/b", " padded", "x" * 101])
def test_invalid_bucket_names(name: str) -> None:
    with pytest.raises(errors.StorageError):
        validate_bucket_name(name)


@pytest.mark.parametrize(("header", "expected"), [
    (None, None), ("bytes=0-9", (0, 9)), ("bytes=5-", (5, 99)), ("bytes=-10", (90, 99)),
    ("bytes=90-200", (90, 99)), ("bytes=100-", "unsatisfiable"), ("bytes=9-3", "unsatisfiable"),
    ("bytes=0-1,5-6", None), ("items=0-1", None), ("bytes=-", None),
])
def test_parse_range(header: str | None, expected: object) -> None:
    assert parse_range(header, 100) == expected


def test_mime_patterns() -> None:
    assert mime_allowed("image/png", ["image/*"])
    assert mime_allowed("text/plain;charset=UTF-8", ["text/plain"])
    assert not mime_allowed("text/html", ["image/*", "application/pdf"])
    assert mime_allowed("anything/at-all", None)
