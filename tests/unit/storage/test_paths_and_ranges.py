"""Object name rules, Range parsing and media types, without a server."""

from __future__ import annotations

import pytest

from server.storage import content_types, errors
from server.storage.media import parse_range
from server.storage.paths import is_valid_object_name, validate_bucket_name


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
    ("bytes=0-" + "9" * 5000, (0, 99)), ("bytes=" + "9" * 5000 + "-", "unsatisfiable"),
    ("bytes=-" + "9" * 5000, (0, 99)), ("bytes=" + "0" * 5000 + "1-2", (1, 2)),
])
def test_parse_range(header: str | None, expected: object) -> None:
    assert parse_range(header, 100) == expected


def mime_allowed(value: str, patterns: list[str] | None) -> bool:
    return content_types.allowed(content_types.require(value), patterns)


def test_mime_patterns() -> None:
    assert mime_allowed("image/png", ["image/*"])
    assert mime_allowed("text/plain;charset=UTF-8", ["text/plain"])
    assert mime_allowed("IMAGE/PNG", ["image/png"])
    assert not mime_allowed("text/html", ["image/*", "application/pdf"])
    assert mime_allowed("anything/at-all", None)


@pytest.mark.parametrize("value", ["application/pdf;a=b, TEXT/HTML", "text/html, application/pdf", "pdf",
                                   "application/pdf\x00", "a/b c", "application/pdf; a=b; c", "x" * 2000 + "/y"])
def test_media_types_that_are_not_exactly_one_are_refused(value: str) -> None:
    with pytest.raises(errors.StorageError) as refused:
        content_types.require(value)
    assert refused.value.code == "InvalidMimeType"


@pytest.mark.parametrize(("stored", "served", "inline"), [
    ("image/png", "image/png", True), ("application/pdf", "application/pdf", True),
    ("TEXT/HTML; charset=utf-8", "text/plain; charset=utf-8", True), ("text/html", "text/plain", True),
    ("image/svg+xml", "image/svg+xml", False), ("application/xml", "application/xml", False),
    ("text/javascript", "text/javascript", False), ("application/x-unknown", "application/x-unknown", False),
    ("not a type", "application/octet-stream", True), (None, "application/octet-stream", True),
])
def test_served_types(stored: str | None, served: str, inline: bool) -> None:
    assert content_types.served(stored) == (served, inline)
