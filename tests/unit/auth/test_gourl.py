"""server.auth.gourl against Go's own net/url tests (url_test.go: urltests, parseRequestURLTests,
TestParseErrors, unescapeTests, TestURLHostnameAndPort, TestRejectControlCharacters) and the
places where the parsers it replaced differed from Go."""

from __future__ import annotations

import pytest

from server.auth import gourl
from server.auth.gourl import URL, Userinfo

U = URL  # the tables read as Go's &URL{...}


# url_test.go's urltests: input and the URL Parse gives (RawPath / RawFragment are not kept here)
URL_TESTS: list[tuple[str, URL]] = [
    ("http://www.google.com", U(scheme="http", host="www.google.com")),
    ("http://www.google.com/", U(scheme="http", host="www.google.com", path="/")),
    ("http://www.google.com/file%20one%26two", U(scheme="http", host="www.google.com", path="/file one&two")),
    ("http://www.google.com/#file%20one%26two",
     U(scheme="http", host="www.google.com", path="/", fragment="file one&two")),
    ("ftp://webmaster@www.google.com/", U(scheme="ftp", user=Userinfo("webmaster"), host="www.google.com", path="/")),
    ("ftp://john%20doe@www.google.com/", U(scheme="ftp", user=Userinfo("john doe"), host="www.google.com", path="/")),
    ("http://www.google.com/?", U(scheme="http", host="www.google.com", path="/", force_query=True)),
    ("http://www.google.com/?foo=bar?", U(scheme="http", host="www.google.com", path="/", raw_query="foo=bar?")),
    ("http://www.google.com/?q=go+language",
     U(scheme="http", host="www.google.com", path="/", raw_query="q=go+language")),
    ("http://www.google.com/?q=go%20language",
     U(scheme="http", host="www.google.com", path="/", raw_query="q=go%20language")),
    ("http://www.google.com/a%20b?q=c+d", U(scheme="http", host="www.google.com", path="/a b", raw_query="q=c+d")),
    ("http:www.google.com/?q=go+language", U(scheme="http", opaque="www.google.com/", raw_query="q=go+language")),
    ("http:%2f%2fwww.google.com/?q=go+language",
     U(scheme="http", opaque="%2f%2fwww.google.com/", raw_query="q=go+language")),
    ("mailto:/webmaster@golang.org", U(scheme="mailto", path="/webmaster@golang.org", omit_host=True)),
    ("mailto:webmaster@golang.org", U(scheme="mailto", opaque="webmaster@golang.org")),
    ("/foo?query=http://bad", U(path="/foo", raw_query="query=http://bad")),
    ("//foo", U(host="foo")),
    ("//user@foo/path?a=b", U(user=Userinfo("user"), host="foo", path="/path", raw_query="a=b")),
    ("///threeslashes", U(path="///threeslashes")),
    ("http://user:password@google.com", U(scheme="http", user=Userinfo("user", "password", True), host="google.com")),
    ("http://j@ne:password@google.com", U(scheme="http", user=Userinfo("j@ne", "password", True), host="google.com")),
    ("http://jane:p@ssword@google.com", U(scheme="http", user=Userinfo("jane", "p@ssword", True), host="google.com")),
    ("http://j@ne:password@google.com/p@th?q=@go",
     U(scheme="http", user=Userinfo("j@ne", "password", True), host="google.com", path="/p@th", raw_query="q=@go")),
    ("http://www.google.com/?q=go+language#foo",
     U(scheme="http", host="www.google.com", path="/", raw_query="q=go+language", fragment="foo")),
    ("http://www.google.com/?q=go+language#foo&bar",
     U(scheme="http", host="www.google.com", path="/", raw_query="q=go+language", fragment="foo&bar")),
    ("http://www.google.com/?q=go+language#foo%26bar",
     U(scheme="http", host="www.google.com", path="/", raw_query="q=go+language", fragment="foo&bar")),
    ("file:///home/adg/rabbits", U(scheme="file", path="/home/adg/rabbits")),
    ("file:///C:/FooBar/Baz.txt", U(scheme="file", path="/C:/FooBar/Baz.txt")),
    ("MaIlTo:webmaster@golang.org", U(scheme="mailto", opaque="webmaster@golang.org")),
    ("a/b/c", U(path="a/b/c")),
    ("http://%3Fam:pa%3Fsword@google.com", U(scheme="http", user=Userinfo("?am", "pa?sword", True), host="google.com")),
    ("http://192.168.0.1/", U(scheme="http", host="192.168.0.1", path="/")),
    ("http://192.168.0.1:8080/", U(scheme="http", host="192.168.0.1:8080", path="/")),
    ("http://[fe80::1]/", U(scheme="http", host="[fe80::1]", path="/")),
    ("http://[fe80::1]:8080/", U(scheme="http", host="[fe80::1]:8080", path="/")),
    ("http://[fe80::1%25en0]/", U(scheme="http", host="[fe80::1%en0]", path="/")),
    ("http://[fe80::1%25en0]:8080/", U(scheme="http", host="[fe80::1%en0]:8080", path="/")),
    ("http://[fe80::1%25%65%6e%301-._~]/", U(scheme="http", host="[fe80::1%en01-._~]", path="/")),
    ("http://[fe80::1%25%65%6e%301-._~]:8080/", U(scheme="http", host="[fe80::1%en01-._~]:8080", path="/")),
    ("http://rest.rsc.io/foo%2fbar/baz%2Fquux?alt=media",
     U(scheme="http", host="rest.rsc.io", path="/foo/bar/baz/quux", raw_query="alt=media")),
    ("mysql://a,b,c/bar", U(scheme="mysql", host="a,b,c", path="/bar")),
    ("scheme://!$&'()*+,;=hello!:1/path", U(scheme="scheme", host="!$&'()*+,;=hello!:1", path="/path")),
    ("http://host/!$&'()*+,;=:@[hello]", U(scheme="http", host="host", path="/!$&'()*+,;=:@[hello]")),
    ("http://example.com/oid/[order_id]", U(scheme="http", host="example.com", path="/oid/[order_id]")),
    ("http://192.168.0.2:8080/foo", U(scheme="http", host="192.168.0.2:8080", path="/foo")),
    ("http://192.168.0.2:/foo", U(scheme="http", host="192.168.0.2:", path="/foo")),
    ("http://2b01:e34:ef40:7730:8e70:5aff:fefe:edac:8080/foo",  # malformed IPv6 but accepted
     U(scheme="http", host="2b01:e34:ef40:7730:8e70:5aff:fefe:edac:8080", path="/foo")),
    ("http://2b01:e34:ef40:7730:8e70:5aff:fefe:edac:/foo",
     U(scheme="http", host="2b01:e34:ef40:7730:8e70:5aff:fefe:edac:", path="/foo")),
    ("http://[2b01:e34:ef40:7730:8e70:5aff:fefe:edac]:8080/foo",
     U(scheme="http", host="[2b01:e34:ef40:7730:8e70:5aff:fefe:edac]:8080", path="/foo")),
    ("http://[2b01:e34:ef40:7730:8e70:5aff:fefe:edac]:/foo",
     U(scheme="http", host="[2b01:e34:ef40:7730:8e70:5aff:fefe:edac]:", path="/foo")),
    ("http://hello.世界.com/foo", U(scheme="http", host="hello.世界.com", path="/foo")),
    ("http://hello.%e4%b8%96%e7%95%8c.com/foo", U(scheme="http", host="hello.世界.com", path="/foo")),
    ("http://hello.%E4%B8%96%E7%95%8C.com/foo", U(scheme="http", host="hello.世界.com", path="/foo")),
    ("http://example.com//foo", U(scheme="http", host="example.com", path="//foo")),
    ('myscheme://authority<"hi">/foo', U(scheme="myscheme", host='authority<"hi">', path="/foo")),
    ("tcp://[2020::2020:20:2020:2020%25Windows%20Loves%20Spaces]:2020",
     U(scheme="tcp", host="[2020::2020:20:2020:2020%Windows Loves Spaces]:2020")),
    ("magnet:?xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a&dn",
     U(scheme="magnet", raw_query="xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a&dn")),
    ("mailto:?subject=hi", U(scheme="mailto", raw_query="subject=hi")),
    ("*", U(path="*")),
]


@pytest.mark.parametrize(("raw", "expected"), URL_TESTS)
def test_parse_as_go(raw: str, expected: URL) -> None:
    assert gourl.parse(raw) == expected


# url_test.go's parseRequestURLTests
@pytest.mark.parametrize(("raw", "valid"), [
    ("http://foo.com", True), ("http://foo.com/", True), ("http://foo.com/path", True), ("/", True),
    ("//not.a.user@not.a.host/just/a/path", True), ("//not.a.user@%66%6f%6f.com/just/a/path/also", True),
    ("*", True), ("http://192.168.0.1/", True), ("http://192.168.0.1:8080/", True),
    ("http://[fe80::1]/", True), ("http://[fe80::1]:8080/", True),
    ("http://[fe80::1%25en0]/", True), ("http://[fe80::1%25en0]:8080/", True),
    ("http://[fe80::1%25%65%6e%301-._~]/", True), ("http://[fe80::1%25%65%6e%301-._~]:8080/", True),
    ("foo.html", False), ("../dir/", False), (" http://foo.com", False),
    ("http://192.168.0.%31/", False), ("http://192.168.0.%31:8080/", False),
    ("http://[fe80::%31]/", False), ("http://[fe80::%31]:8080/", False),
    ("http://[fe80::%31%25en0]/", False), ("http://[fe80::%31%25en0]:8080/", False),
    ("http://[fe80::1%en0]/", False), ("http://[fe80::1%en0]:8080/", False),
    ("", False),
])
def test_parse_request_uri_as_go(raw: str, valid: bool) -> None:
    if valid:
        gourl.parse_request_uri(raw)
    else:
        with pytest.raises(gourl.URLError):
            gourl.parse_request_uri(raw)


def test_a_request_uri_that_looks_scheme_relative_is_a_path() -> None:
    assert gourl.parse_request_uri("//not.a.user@not.a.host/just/a/path") == U(path="//not.a.user@not.a.host/just/a/path")


# url_test.go's TestParseErrors
@pytest.mark.parametrize(("raw", "fails"), [
    ("http://[::1]", False), ("http://[::1]:80", False), ("http://[::1]:namedport", True),
    ("http://x:namedport", True), ("http://[::1]/", False), ("http://[::1]a", True), ("http://[::1]%23", True),
    ("http://[::1%25en0]", False), ("http://[::1]:", False), ("http://x:", False), ("http://[::1]:%38%30", True),
    ("http://[::1%25%41]", False), ("http://[%10::1]", True), ("http://[::1]/%48", False),
    ("http://%41:8080/", True), ("mysql://x@y(z:123)/foo", True), ("mysql://x@y(1.2.3.4:123)/foo", True),
    (" http://foo.com", True), ("ht tp://foo.com", True), ("ahttp://foo.com", False), ("1http://foo.com", True),
    ("http://[]%20%48%54%54%50%2f%31%2e%31%0a%4d%79%48%65%61%64%65%72%3a%20%31%32%33%0a%0a/", True),
    ("http://a b.com/", True), ("cache_object://foo", True), ("cache_object:foo", True),
    ("cache_object:foo/bar", True), ("cache_object/:foo/bar", False),
])
def test_parse_errors_as_go(raw: str, fails: bool) -> None:
    if fails:
        with pytest.raises(gourl.URLError):
            gourl.parse(raw)
    else:
        gourl.parse(raw)


@pytest.mark.parametrize(("raw", "message"), [
    ("http://a b.com/", 'parse "http://a b.com/": invalid character " " in host name'),
    ("https://example.com/%zz", 'parse "https://example.com/%zz": invalid URL escape "%zz"'),
    ("https://example.com/%zé", 'parse "https://example.com/%zé": invalid URL escape "%z\\xc3"'),
    ("https://example.com/%4", 'parse "https://example.com/%4": invalid URL escape "%4"'),
    ("http://%41:8080/", 'parse "http://%41:8080/": invalid URL escape "%41"'),
    ("http://[::1]:%38%30", 'parse "http://[::1]:%38%30": invalid port ":%38%30" after host'),
    ("http://x:namedport", 'parse "http://x:namedport": invalid port ":namedport" after host'),
    ("http://[::1", 'parse "http://[::1": missing \']\' in host'),
    ("http://user^:passwo^rd@foo.com/", 'parse "http://user^:passwo^rd@foo.com/": net/url: invalid userinfo'),
    ("://x", 'parse "://x": missing protocol scheme'),
    ("1a:b/x", 'parse "1a:b/x": first path segment in URL cannot contain colon'),
    ("http://foo.com/?foo\nbar", 'parse "http://foo.com/?foo\\nbar": net/url: invalid control character in URL'),
    ("http\r://foo.com/", 'parse "http\\r://foo.com/": net/url: invalid control character in URL'),
    ("http://foo\x7f.com/", 'parse "http://foo\\x7f.com/": net/url: invalid control character in URL'),
    # a fragment's error names the whole URL, any other the URL without its fragment
    ("http://x/#a%zz", 'parse "http://x/#a%zz": invalid URL escape "%zz"'),
    ("http://x/%zz#a", 'parse "http://x/%zz": invalid URL escape "%zz"'),
    # the URL is quoted as strconv.Quote does: '"' escaped, a non-printable rune as \u
    ('http://"\u00a0 /', 'parse "http://\\"\\u00a0 /": invalid character " " in host name'),
])
def test_error_text_as_go(raw: str, message: str) -> None:
    with pytest.raises(gourl.URLError) as caught:
        gourl.parse(raw)
    assert str(caught.value) == message


def test_parse_request_uri_errors_as_go() -> None:
    for raw, message in [("", 'parse "": empty url'), ("foo.html", 'parse "foo.html": invalid URI for request')]:
        with pytest.raises(gourl.URLError) as caught:
            gourl.parse_request_uri(raw)
        assert str(caught.value) == message


def test_non_ascii_control_bytes_are_kept() -> None:
    assert gourl.parse("http://foo.com/ctl\x80").path == "/ctl\x80"


# url_test.go's unescapeTests (PathUnescape: '+' stays '+')
@pytest.mark.parametrize(("raw", "out", "bad"), [
    ("", "", None), ("abc", "abc", None), ("1%41", "1A", None), ("1%41%42%43", "1ABC", None), ("%4a", "J", None),
    ("%6F", "o", None), ("%", None, '"%"'), ("%a", None, '"%a"'), ("%1", None, '"%1"'), ("123%45%6", None, '"%6"'),
    ("%zzzzz", None, '"%zz"'), ("a+b", "a+b", None), ("a%20b", "a b", None),
])
def test_unescape_as_go(raw: str, out: str | None, bad: str | None) -> None:
    if out is not None:
        assert gourl.unescape(raw.encode(), gourl.PATH) == out.encode()
        return
    with pytest.raises(ValueError, match=f"^invalid URL escape {bad}$"):
        gourl.unescape(raw.encode(), gourl.PATH)


def test_undecodable_bytes_survive_as_surrogate_escapes() -> None:
    assert gourl.parse("http://x/%ff").path == "/\udcff"


# url_test.go's TestURLHostnameAndPort
@pytest.mark.parametrize(("host", "hostname", "port"), [
    ("foo.com:80", "foo.com", "80"), ("foo.com", "foo.com", ""), ("foo.com:", "foo.com", ""),
    ("FOO.COM", "FOO.COM", ""), ("1.2.3.4", "1.2.3.4", ""), ("1.2.3.4:80", "1.2.3.4", "80"),
    ("[1:2:3:4]", "1:2:3:4", ""), ("[1:2:3:4]:80", "1:2:3:4", "80"), ("[::1]:80", "::1", "80"),
    ("[::1]", "::1", ""), ("[::1]:", "::1", ""), ("localhost", "localhost", ""), ("localhost:443", "localhost", "443"),
    ("[2001:0db8:85a3:0000:0000:8a2e:0370:7334]:17000", "2001:0db8:85a3:0000:0000:8a2e:0370:7334", "17000"),
    ("[google.com]:80", "google.com", "80"), ("google.com]:80", "google.com]", "80"),
    ("google.com:80_invalid_port", "google.com:80_invalid_port", ""), ("[::1]extra]:80", "::1]extra", "80"),
    ("google.com]extra:extra", "google.com]extra:extra", ""),
])
def test_hostname_and_port_as_go(host: str, hostname: str, port: str) -> None:
    url = U(host=host)
    assert (url.hostname(), url.port()) == (hostname, port)


# Where the parsers this module replaced (in redirects.py and oauth_clients.py) were not Go's
@pytest.mark.parametrize(("raw", "expected"), [
    # the query is kept raw: a bad escape in it is no error
    ("https://a.example.com/cb?x=%zz&y=%", U(scheme="https", host="a.example.com", path="/cb", raw_query="x=%zz&y=%")),
    # '<', '>' and '"' are allowed in a host, as are ':' '[' ']' when the host is not bracketed (Go 1.23)
    ('https://a<b>"c.example.com/', U(scheme="https", host='a<b>"c.example.com', path="/")),
    ("http://a:b:80/", U(scheme="http", host="a:b:80", path="/")),
    ("http://a[b]c/", U(scheme="http", host="a[b]c", path="/")),
    # '@' in the user info: the host starts after the last one
    ("https://us@er:p@ss@example.com/", U(scheme="https", user=Userinfo("us@er", "p@ss", True),
                                          host="example.com", path="/")),
    # an escaped non-ASCII byte, or %25 before a zone, is a valid host escape
    ("https://ex%C3%A4mple.com/", U(scheme="https", host="exämple.com", path="/")),
])
def test_what_go_accepts(raw: str, expected: URL) -> None:
    assert gourl.parse(raw) == expected


@pytest.mark.parametrize(("raw", "message"), [
    ("https://a.example.com/cb#%zz", 'invalid URL escape "%zz"'),  # the fragment is unescaped
    ("https://%41.example.com/", 'invalid URL escape "%41"'),  # ASCII may not be escaped in a host
    ("https://a%2F.example.com/", 'invalid URL escape "%2F"'),
    ("http://[::1%25%0a]/", 'invalid URL escape "%0a"'),  # nor a zone's byte a host could not hold
    ("https://a{b}.example.com/", 'invalid character "{" in host name'),
])
def test_what_go_refuses(raw: str, message: str) -> None:
    with pytest.raises(gourl.URLError) as caught:
        gourl.parse(raw)
    assert caught.value.err == message


def test_parse_request_uri_does_not_cut_the_fragment() -> None:
    assert gourl.parse_request_uri("https://a.example.com/x#y?z") == U(scheme="https", host="a.example.com",
                                                                        path="/x#y", raw_query="z")
    with pytest.raises(gourl.URLError) as caught:
        gourl.parse_request_uri("https://a.example.com#about")
    assert caught.value.err == 'invalid character "#" in host name'
