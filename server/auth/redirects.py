"""Where auth links may send users back to: GoTrue's IsRedirectURLValid and GOTRUE_URI_ALLOW_LIST.

A `redirect_to` is kept when it points at the site URL (same scheme, host and port; any port
when the host is localhost or a loopback address, RFC 8252), at a loopback IP address, or
matches an allow-list entry; else the site URL is used. Entries are gobwas/glob patterns
compiled with the separators '.' and '/', as GoTrue compiles them: `*` stops at a dot or a
slash, `**` does not, `?` is one character other than those, `[a-z]` / `[!a-z]` classes,
`{a,b}` alternatives, `\\` escapes. The fragment is not matched. URLs with a control
character or a blank, a host written as one decimal number, or an http(s) host with unusual
characters are refused before the list is read.
"""

from __future__ import annotations

import ipaddress
import re
from functools import lru_cache

SEPARATORS = "./"
_DECIMAL = re.compile(r"[0-9]+")
_REGULAR_HOSTNAME = re.compile(r"[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?")
_SCHEME = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*")
_BAD_ESCAPE = re.compile(r"%(?![0-9a-fA-F]{2})")
_USERINFO = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:%]*")
_HOST = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=%\x80-\U0010ffff]*")


class GlobError(ValueError):
    pass


def glob_regex(pattern: str) -> str:
    """A gobwas/glob pattern (separators '.' and '/') as a regular expression."""
    not_sep = "[^" + re.escape(SEPARATORS) + "]"
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 >= n:
                raise GlobError("unexpected end of pattern after an escape")
            out.append(re.escape(pattern[i + 1]))
            i += 2
        elif c == "*":
            if pattern.startswith("**", i):
                out.append(".*")
                i += 2
            else:
                out.append(not_sep + "*")
                i += 1
        elif c == "?":
            out.append(not_sep)
            i += 1
        elif c == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                raise GlobError("unterminated character class")
            body = pattern[i + 1:end]
            negate = body.startswith("!")
            body = body[1:] if negate else body
            if not body:
                raise GlobError("empty character class")
            out.append("[" + ("^" if negate else "") + _class_items(body) + "]")
            i = end + 1
        elif c == "{":
            depth, j, parts, start = 1, i + 1, [], i + 1
            while j < n and depth:
                if pattern[j] == "\\":
                    j += 2
                    continue
                if pattern[j] == "{":
                    depth += 1
                elif pattern[j] == "}":
                    depth -= 1
                elif pattern[j] == "," and depth == 1:
                    parts.append(pattern[start:j])
                    start = j + 1
                j += 1
            if depth:
                raise GlobError("unterminated alternatives")
            parts.append(pattern[start:j - 1])
            out.append("(?:" + "|".join(glob_regex(part) for part in parts) + ")")
            i = j
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def _class_items(body: str) -> str:
    """A class's characters and `a-z` ranges, escaped for a regular expression class."""
    items, k = [], 0
    while k < len(body):
        if k + 2 < len(body) and body[k + 1] == "-":
            if body[k] > body[k + 2]:
                raise GlobError("bad character range")
            items.append(re.escape(body[k]) + "-" + re.escape(body[k + 2]))
            k += 3
        else:
            items.append(re.escape(body[k]))
            k += 1
    return "".join(items)


@lru_cache(maxsize=8)
def compile_allow_list(entries: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    """The entries that compile (GoTrue refuses to start with a bad one; here it matches nothing)."""
    compiled = []
    for entry in entries:
        try:
            compiled.append(re.compile(glob_regex(entry), re.DOTALL))
        except (GlobError, re.error):
            continue
    return tuple(compiled)


def matches_allow_list(entries: tuple[str, ...], url: str) -> bool:
    target = url.split("#", 1)[0]
    return any(pattern.fullmatch(target) for pattern in compile_allow_list(entries))


class _Url:
    """What Go's url.Parse gives IsRedirectURLValid: scheme (lower-cased), Hostname(), Port()."""

    def __init__(self, scheme: str, host: str, port: str) -> None:
        self.scheme, self.host, self.port = scheme, host, port


def parse(raw: str) -> _Url | None:
    """Go's url.Parse, as far as this check needs it; None where Go answers an error."""
    if _BAD_ESCAPE.search(raw.split("#", 1)[0]):
        return None
    scheme, colon, rest = raw.partition(":")
    if not colon or not _SCHEME.fullmatch(scheme):
        # No scheme: Go refuses a relative URL whose first segment holds a colon.
        first_segment = raw.split("/", 1)[0]
        if ":" in first_segment:
            return None
        return _Url("", "", "")
    rest = rest.split("#", 1)[0].split("?", 1)[0]
    if not rest.startswith("//"):
        return _Url(scheme.lower(), "", "")
    authority = rest[2:].split("/", 1)[0]
    userinfo, at, hostport = authority.rpartition("@")
    if at and not _USERINFO.fullmatch(userinfo):
        return None
    host, port = hostport, ""
    if hostport.startswith("["):
        end = hostport.find("]")
        if end == -1:
            return None
        host, after = hostport[1:end], hostport[end + 1:]
        if after and not re.fullmatch(r":[0-9]*", after):
            return None
        port = after[1:]
    elif ":" in hostport:
        host, _, port = hostport.rpartition(":")
        if not port.isascii() or (port and not port.isdigit()):
            return None
    if not hostport.startswith("[") and not _HOST.fullmatch(host):
        return None
    return _Url(scheme.lower(), host, port)


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _is_localhost(host: str) -> bool:
    ip = _ip(host)
    return host == "localhost" or (ip is not None and ip.is_loopback)


def is_redirect_url_valid(site_url: str, allow_list: tuple[str, ...], redirect_url: str) -> bool:
    if not redirect_url or any(ord(c) <= 0x20 or ord(c) == 0x7F for c in redirect_url):
        return False
    base = parse(site_url)
    if base is None:
        return False
    ref = parse(redirect_url)
    if ref is None:
        if redirect_url.lower().startswith(("http://", "https://")):
            return False
    else:
        if base.host == ref.host and base.scheme == ref.scheme and (base.port == ref.port or _is_localhost(ref.host)):
            return True
        is_http = ref.scheme in ("http", "https")
        if _DECIMAL.fullmatch(ref.host):
            return False
        ip = _ip(ref.host)
        if ip is not None:
            return ip.is_loopback
        if is_http and not _REGULAR_HOSTNAME.fullmatch(ref.host):
            return False
    return matches_allow_list(allow_list, redirect_url)
