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

from server.auth import gourl

SEPARATORS = "./"
_DECIMAL = re.compile(r"[0-9]+")
_REGULAR_HOSTNAME = re.compile(r"[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?")


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


def _parse(raw: str) -> gourl.URL | None:
    """Go's url.Parse; None where it answers an error."""
    try:
        return gourl.parse(raw)
    except gourl.URLError:
        return None


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """net.ParseIP: an IPv4 or IPv6 address, never with a zone."""
    if "%" in host:
        return None
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _is_loopback(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """net.IP.IsLoopback: an IPv4-mapped address is judged as its IPv4 address."""
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return (mapped or ip).is_loopback


def _is_localhost(host: str) -> bool:
    ip = _ip(host)
    return host == "localhost" or (ip is not None and _is_loopback(ip))


def is_redirect_url_valid(site_url: str, allow_list: tuple[str, ...], redirect_url: str) -> bool:
    if not redirect_url or any(ord(c) <= 0x20 or ord(c) == 0x7F for c in redirect_url):
        return False
    base = _parse(site_url)
    if base is None:
        return False
    ref = _parse(redirect_url)
    if ref is None:
        if redirect_url.lower().startswith(("http://", "https://")):
            return False
    else:
        host = ref.hostname()
        if base.hostname() == host and base.scheme == ref.scheme and (base.port() == ref.port() or _is_localhost(host)):
            return True
        is_http = ref.scheme in ("http", "https")
        if _DECIMAL.fullmatch(host):
            return False
        ip = _ip(host)
        if ip is not None:
            return _is_loopback(ip)
        if is_http and not _REGULAR_HOSTNAME.fullmatch(host):
            return False
    return matches_allow_list(allow_list, redirect_url)
