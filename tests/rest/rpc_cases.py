"""Table-driven RPC cases: a request, and the status, headers and body PostgREST answers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx

NO_BODY = object()  # the answer has an empty body


@dataclass(frozen=True)
class Case:
    id: str
    method: str
    path: str
    status: int
    body: Any = None  # the expected JSON (NO_BODY: empty); None with `text` set: compare text
    headers: dict[str, str] = field(default_factory=dict)  # request headers
    json: Any = None  # request JSON body
    content: bytes | None = None  # request raw body
    expect_headers: dict[str, str] = field(default_factory=dict)  # answer headers that must match
    absent_headers: tuple[str, ...] = ()
    text: str | None = None  # the expected body text, when not comparing JSON


def check(api: Any, case: Case) -> httpx.Response:
    """Send the case's request as `api` (tests.rest.conftest.Api) and assert the answer."""
    kw: dict[str, Any] = {"headers": dict(case.headers)}
    if case.json is not None:
        kw["json"] = case.json
    if case.content is not None:
        kw["content"] = case.content
    r = api.request(case.method, case.path, **kw)
    assert r.status_code == case.status, (case.id, r.status_code, r.text)
    for name, value in case.expect_headers.items():
        assert r.headers.get(name) == value, (case.id, name, r.headers.get(name))
    for name in case.absent_headers:
        assert name not in r.headers, (case.id, name, r.headers.get(name))
    if case.body is NO_BODY:
        assert r.content == b"", (case.id, r.content)
    elif case.text is not None:
        assert r.text == case.text, (case.id, r.text)
    elif case.body is not None:
        assert r.json() == case.body, (case.id, r.text)
    return r


def ids(cases: list[Case]) -> list[str]:
    return [c.id for c in cases]
