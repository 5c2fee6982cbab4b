"""Go's net/url Parse and ParseRequestURI, as GoTrue's build (Go 1.23) runs them.

A port of src/net/url/url.go: Parse, parse, getScheme, parseAuthority, validUserinfo,
parseHost, validOptionalPort, unescape (host, zone, path, user info and fragment modes) and
shouldEscape as far as unescape asks it, and URL.Hostname / URL.Port. Go works on bytes, so
does this: the input is read as UTF-8 and a decoded field that is not UTF-8 (a "%ff" in a path)
keeps its bytes as surrogate escapes. What Parse refuses raises URLError, whose text is Go's
(`parse "http://a b/": invalid character " " in host name`).

Not ported: RawPath / RawFragment (the encoding hints, which need escape) and ParseQuery; the
query is kept raw and never checked, as Go keeps it. Go 1.25.2 later refuses a bracketed host
that is not an IPv6 address, and Go 1.26 a second colon in an http(s) host; Go 1.23 does
neither, and neither does this.
"""

from __future__ import annotations

from dataclasses import dataclass

# unescape's modes (Go's encoding constants)
PATH, HOST, ZONE, USER_PASSWORD, FRAGMENT = "path", "host", "zone", "user_password", "fragment"

_ALNUM = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_HOST_ALLOWED = frozenset(b"!$&'()*+,;=:[]<>\"")  # sub-delims, ':' '[' ']' for host:port, '<' '>' '"'
_UNRESERVED_MARKS = frozenset(b"-_.~")
_HEX = frozenset(b"0123456789abcdefABCDEF")
_USERINFO_CHARS = _ALNUM | frozenset(b"-._:~!$&'()*+,;=%@")
_SCHEME_FIRST = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_SCHEME_REST = frozenset(b"0123456789+-.")


class URLError(ValueError):
    """Go's *url.Error: Op "parse", the URL as given, and the error underneath."""

    def __init__(self, op: str, url: bytes, err: str) -> None:
        self.op, self.url, self.err = op, _text(url), err
        super().__init__(f"{op} {quote(url)}: {err}")


class _Failure(ValueError):
    """An error of parse's (Go's errors.New / EscapeError / InvalidHostError text)."""


@dataclass(frozen=True)
class Userinfo:
    username: str
    password: str = ""
    password_set: bool = False


@dataclass(frozen=True)
class URL:
    """The fields of Go's url.URL that parsing fills (RawPath and RawFragment left out)."""

    scheme: str = ""
    opaque: str = ""
    user: Userinfo | None = None
    host: str = ""
    path: str = ""
    omit_host: bool = False
    force_query: bool = False
    raw_query: str = ""
    fragment: str = ""

    def hostname(self) -> str:
        """URL.Hostname(): the host without a valid port and without IPv6 brackets."""
        return _split_host_port(self.host)[0]

    def port(self) -> str:
        """URL.Port(): the port's digits, or "" when the host has no valid port."""
        return _split_host_port(self.host)[1]


def parse(raw_url: str) -> URL:
    """url.Parse: a URL or a relative reference; the fragment is cut off first."""
    raw = _bytes(raw_url)
    u, _, frag = raw.partition(b"#")
    try:
        url = _parse(u, via_request=False)
    except _Failure as failure:
        raise URLError("parse", u, str(failure)) from None
    if not frag:
        return url
    try:
        fragment = unescape(frag, FRAGMENT)
    except _Failure as failure:
        raise URLError("parse", raw, str(failure)) from None
    return URL(url.scheme, url.opaque, url.user, url.host, url.path, url.omit_host, url.force_query,
               url.raw_query, _text(fragment))


def parse_request_uri(raw_url: str) -> URL:
    """url.ParseRequestURI: an absolute URI or an absolute path; a '#' is not special."""
    raw = _bytes(raw_url)
    try:
        return _parse(raw, via_request=True)
    except _Failure as failure:
        raise URLError("parse", raw, str(failure)) from None


def _parse(raw: bytes, via_request: bool) -> URL:
    if any(b < 0x20 or b == 0x7F for b in raw):
        raise _Failure("net/url: invalid control character in URL")
    if raw == b"" and via_request:
        raise _Failure("empty url")
    if raw == b"*":
        return URL(path="*")
    scheme, rest = _get_scheme(raw)
    scheme = scheme.lower()  # ASCII only, as strings.ToLower on a scheme
    force_query, raw_query = False, b""
    if rest.endswith(b"?") and rest.count(b"?") == 1:
        force_query, rest = True, rest[:-1]
    else:
        rest, _, raw_query = rest.partition(b"?")
    if not rest.startswith(b"/"):
        if scheme:
            # rootless paths (RFC 3986) are opaque
            return URL(_text(scheme), opaque=_text(rest), force_query=force_query, raw_query=_text(raw_query))
        if via_request:
            raise _Failure("invalid URI for request")
        if b":" in rest.partition(b"/")[0]:
            raise _Failure("first path segment in URL cannot contain colon")
    user: Userinfo | None = None
    host, omit_host = b"", False
    if (scheme or (not via_request and not rest.startswith(b"///"))) and rest.startswith(b"//"):
        authority, rest = rest[2:], b""
        slash = authority.find(b"/")
        if slash >= 0:
            authority, rest = authority[:slash], authority[slash:]
        user, host = _parse_authority(authority)
    elif scheme and rest.startswith(b"/"):
        omit_host = True
    path = unescape(rest, PATH)
    return URL(_text(scheme), user=user, host=_text(host), path=_text(path), omit_host=omit_host,
               force_query=force_query, raw_query=_text(raw_query))


def _get_scheme(raw: bytes) -> tuple[bytes, bytes]:
    """getScheme: (scheme, rest) when raw starts with [a-zA-Z][a-zA-Z0-9+-.]*':', else (b"", raw)."""
    for i, c in enumerate(raw):
        if c in _SCHEME_FIRST:
            continue
        if c in _SCHEME_REST:
            if i == 0:
                return b"", raw
        elif c == 0x3A:  # ':'
            if i == 0:
                raise _Failure("missing protocol scheme")
            return raw[:i], raw[i + 1:]
        else:
            return b"", raw
    return b"", raw


def _parse_authority(authority: bytes) -> tuple[Userinfo | None, bytes]:
    at = authority.rfind(b"@")
    host = _parse_host(authority[at + 1:] if at >= 0 else authority)
    if at < 0:
        return None, host
    userinfo = authority[:at]
    if not all(c in _USERINFO_CHARS for c in userinfo):
        raise _Failure("net/url: invalid userinfo")
    if b":" not in userinfo:
        return Userinfo(_text(unescape(userinfo, USER_PASSWORD))), host
    username, _, password = userinfo.partition(b":")
    return Userinfo(_text(unescape(username, USER_PASSWORD)), _text(unescape(password, USER_PASSWORD)), True), host


def _parse_host(host: bytes) -> bytes:
    """parseHost: host[:port], an IP-literal in brackets (RFC 3986, zones as RFC 6874) or not."""
    if host.startswith(b"["):
        close = host.rfind(b"]")
        if close < 0:
            raise _Failure("missing ']' in host")
        colon_port = host[close + 1:]
        if not valid_optional_port(colon_port):
            raise _Failure(f"invalid port {quote(colon_port)} after host")
        # %25 starts the zone, which may escape almost anything; the address itself may not
        zone = host[:close].find(b"%25")
        if zone >= 0:
            return unescape(host[:zone], HOST) + unescape(host[zone:close], ZONE) + unescape(host[close:], HOST)
    else:
        colon = host.rfind(b":")
        if colon >= 0 and not valid_optional_port(host[colon:]):
            raise _Failure(f"invalid port {quote(host[colon:])} after host")
    return unescape(host, HOST)


def valid_optional_port(port: bytes) -> bool:
    """validOptionalPort: empty, or ':' and ASCII digits."""
    return port == b"" or (port[:1] == b":" and all(0x30 <= c <= 0x39 for c in port[1:]))


def _should_escape_in_host(c: int) -> bool:
    """shouldEscape(c, encodeHost) (encodeZone answers the same)."""
    return not (c in _ALNUM or c in _HOST_ALLOWED or c in _UNRESERVED_MARKS)


def unescape(s: bytes, mode: str) -> bytes:
    """unescape: each %XX decoded; a malformed escape, or in a host an escaped ASCII byte or a
    byte that should be escaped, is an error. ('+' stays '+': no query-component mode here.)"""
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c == 0x25:  # '%'
            if i + 2 >= n or s[i + 1] not in _HEX or s[i + 2] not in _HEX:
                raise _Failure(f"invalid URL escape {quote(s[i:i + 3])}")
            escape = s[i:i + 3]
            # RFC 3986: a host may %-encode only non-ASCII bytes; RFC 6874: %25 in a zone
            if mode == HOST and int(escape[1:2], 16) < 8 and escape != b"%25":
                raise _Failure(f"invalid URL escape {quote(escape)}")
            if mode == ZONE:
                value = int(escape[1:], 16)
                if escape != b"%25" and value != 0x20 and _should_escape_in_host(value):
                    raise _Failure(f"invalid URL escape {quote(escape)}")
            i += 3
        else:
            if mode in (HOST, ZONE) and c < 0x80 and _should_escape_in_host(c):
                raise _Failure(f"invalid character {quote(s[i:i + 1])} in host name")
            i += 1
    if b"%" not in s:
        return s
    out, i = bytearray(), 0
    while i < n:
        if s[i] == 0x25:
            out.append(int(s[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(s[i])
            i += 1
    return bytes(out)


def _split_host_port(host_port: str) -> tuple[str, str]:
    """splitHostPort: a valid ":port" off the end, then the brackets off an IPv6 literal."""
    host, port = host_port, ""
    colon = host.rfind(":")
    if colon >= 0 and valid_optional_port(_bytes(host[colon:])):
        host, port = host[:colon], host[colon + 1:]
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, port


def _bytes(text: str) -> bytes:
    """UTF-8; a byte kept as a surrogate escape (see _text) is that byte again."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate of another kind
        return text.encode("utf-8", "surrogatepass")


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


_QUOTE_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
                  '"': '\\"', "\\": "\\\\"}


def quote(raw: bytes) -> str:
    """strconv.Quote: printable runes kept, others and bytes that are not UTF-8 escaped."""
    out = []
    for ch in raw.decode("utf-8", "surrogateescape"):
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8
            out.append(f"\\x{code - 0xDC00:02x}")
        elif ch in _QUOTE_ESCAPES:
            out.append(_QUOTE_ESCAPES[ch])
        elif ch.isprintable():
            out.append(ch)
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return '"' + "".join(out) + '"'
