"""Response headers a database function sets: `response.headers` and the DETAIL of
`RAISE SQLSTATE 'PGRST'`. They enter the response here, once, made safe for both ways a
response leaves (the REST lane and the ASGI app):

- names lower-cased, so that one a function sets replaces the server's own (CORS);
- a name or value HTTP forbids (a line break would split the response in two) refused;
- Content-Length and Transfer-Encoding left out: the server frames the body itself, and a
  function's own framing would have the client read the body wrong.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# What HTTP forbids in a header name and in a value (uvicorn's own checks on an ASGI response).
_BAD_NAME = re.compile('[\x00-\x1f\x7f()<>@,;:\\[\\]={} \t\\\\"]')
_BAD_VALUE = re.compile("[\x00-\x08\x0a-\x1f\x7f]")
FRAMING = frozenset(("content-length", "transfer-encoding"))


def valid_headers(names: str, values: str) -> bool:
    """Whether header names (joined) and values (joined) are all valid HTTP."""
    return (names != "" or values == "") and not (_BAD_NAME.search(names) or _BAD_VALUE.search(values))


def function_headers(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The headers a function set, safe to send; ValueError when one is not valid HTTP."""
    safe: dict[str, str] = {}
    for name, value in pairs:
        if not name or not valid_headers(name, value):
            raise ValueError(f"not a valid HTTP header: {name!r}")
        name = name.lower()
        if name not in FRAMING:
            safe[name] = value
    return safe
