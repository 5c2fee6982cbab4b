"""GoTrue's IsRedirectURLValid and the gobwas/glob allow-list patterns (separators '.' and '/')."""

from __future__ import annotations

import pytest

from server.auth.redirects import GlobError, glob_regex, is_redirect_url_valid, matches_allow_list

SITE = "https://example.com"


@pytest.mark.parametrize(("pattern", "url", "expected"), [
    ("http://localhost:8000/*", "http://localhost:8000/path", True),
    ("http://localhost:8000/*", "http://localhost:8000", False),  # GoTrue's own cases
    ("http://localhost:8000/*", "http://localhost:8000/path/to/page", False),  # * stops at '/'
    ("http://localhost:8000/**", "http://localhost:8000/path/to/page", True),
    ("https://*.example.org/**", "https://app.example.org/x", True),
    ("https://*.example.org/**", "https://a.b.example.org/x", False),  # * stops at '.'
    ("https://**.example.org/**", "https://a.b.example.org/x", True),
    ("https://app?.example.org", "https://app1.example.org", True),
    ("https://app?.example.org", "https://app/.example.org", False),
    ("https://{app,www}.example.org/cb", "https://www.example.org/cb", True),
    ("https://{app,www}.example.org/cb", "https://api.example.org/cb", False),
    ("https://app[0-9].example.org", "https://app7.example.org", True),
    ("https://app[!0-9].example.org", "https://app7.example.org", False),
    ("https://app[!0-9].example.org", "https://appx.example.org", True),
    (r"https://example.org/\*", "https://example.org/*", True),
    (r"https://example.org/\*", "https://example.org/a", False),
    ("com.example.app://callback", "com.example.app://callback", True),
    ("https://example.org/cb", "https://example.org/cb#access_token=x", True),  # fragment not matched
    ("https://example.org/cb", "https://example.org/cbX", False),  # the whole URL must match
])
def test_glob_semantics(pattern: str, url: str, expected: bool) -> None:
    assert matches_allow_list((pattern,), url) is expected


@pytest.mark.parametrize("pattern", ["https://[a-", "https://{a,b", "trailing\\", "https://[]x"])
def test_broken_patterns_are_errors_and_match_nothing(pattern: str) -> None:
    with pytest.raises(GlobError):
        glob_regex(pattern)
    assert not matches_allow_list((pattern,), pattern)


@pytest.mark.parametrize(("url", "expected"), [
    ("https://example.com/welcome", True),  # the site: same scheme, host and port
    ("https://example.com:8443/welcome", False),
    ("http://example.com/welcome", False),
    ("https://evil.com/", False),
    ("https://example.com.evil.com/", False),
    ("https://evil.com/?https://example.com", False),
    ("http://127.0.0.1:9999/cb", True),  # a loopback address is always allowed
    ("http://[::1]:3000/cb", True),
    ("http://10.0.0.1/cb", False),
    ("http://2130706433/", False),  # a decimal IP address
    ("https://exa_mple.com/", False),  # an unusual http(s) host
    ("", False),
    (" https://example.com", False),  # blanks and control characters
    ("https://example.com/\tx", False),
    ("https://example.com/%zz", False),  # Go's url.Parse refuses it
    ("javascript:alert(1)", False),
    ("//evil.com/x", False),
    # Go's url.Parse, as gourl ports it: the query is never unescaped, the fragment is
    ("https://example.com/cb?next=%zz", True),
    ("https://example.com/cb#%zz", False),
    ("https://us@er:p@ss@example.com/cb", True),  # '@' in the user info; the host is after the last
    ("//127.0.0.1/cb", True),  # a scheme-relative URL has a host: a loopback address
    ("//2130706433/", False),
    ("https://%41.example.com/", False),  # ASCII escaped in a host: Go refuses the URL
    ("http://[::ffff:127.0.0.1]:3000/cb", True),  # net.IP.IsLoopback reads an IPv4-mapped address as IPv4
    ("http://[::1%25en0]:3000/cb", False),  # net.ParseIP takes no zone: an unusual http(s) host
])
def test_redirect_rules_without_allow_list(url: str, expected: bool) -> None:
    assert is_redirect_url_valid(SITE, (), url) is expected


def test_a_localhost_site_allows_any_port() -> None:
    assert is_redirect_url_valid("http://localhost:3000", (), "http://localhost:5173/cb")
    assert not is_redirect_url_valid("http://localhost:3000", (), "https://localhost:5173/cb")
    assert not is_redirect_url_valid("https://example.com", (), "http://localhost:5173/cb")


def test_allow_list_entries() -> None:
    allow = ("https://app.example.org/**", "myapp://**", "com.my_app.example://callback")
    assert is_redirect_url_valid(SITE, allow, "https://app.example.org/auth/callback?next=/x")
    assert not is_redirect_url_valid(SITE, allow, "https://evil.example.org/")
    assert is_redirect_url_valid(SITE, allow, "myapp://login")
    # a scheme Go cannot parse (underscore) still matches the list, as GoTrue allows
    assert is_redirect_url_valid(SITE, allow, "com.my_app.example://callback")
    assert not is_redirect_url_valid(SITE, allow, "com.my_app.example://other")


def test_hosts_go_accepts_reach_the_allow_list() -> None:
    # '<', '>' and '"' are host characters to Go; a non-http(s) URL with them is matched against the list
    assert is_redirect_url_valid(SITE, ("myapp://**",), 'myapp://a<b>"c/cb')
    # an http(s) host with them is an unusual host, refused before the list
    assert not is_redirect_url_valid(SITE, ("https://**",), "https://a<b>.example.org/cb")
    # a bad escape in the fragment fails url.Parse, so an http(s) URL is refused even when listed
    assert not is_redirect_url_valid(SITE, ("https://app.example.org/**",), "https://app.example.org/cb#%zz")
    assert is_redirect_url_valid(SITE, ("https://app.example.org/**",), "https://app.example.org/cb?x=%zz")
