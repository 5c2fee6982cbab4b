"""server.serve.rest_lane: which request targets take the lane, and the response head it writes."""

from __future__ import annotations

from server.rest import errors
from server.rest.response import Answer, error_answer
from server.serve.rest_lane import head, sendable, target

DEFAULTS = [(b"date", b"Tue, 24 Nov 2026 03:00:00 GMT"), (b"server", b"uvicorn")]


def test_only_origin_form_targets_below_rest_v1_take_the_lane() -> None:
    assert target(b"/rest/v1/books?select=id&id=eq.1") == ("/books", "select=id&id=eq.1")
    assert target(b"/rest/v1/rpc/add") == ("/rpc/add", "")
    assert target(b"/rest/v1/") == ("/", "")
    assert target(b"/rest/v1") is None  # no slash: the ASGI app answers it (as before)
    assert target(b"/rest/v10/books") is None
    assert target(b"/auth/v1/user") is None
    assert target(b"http://example.com/rest/v1/books") is None  # absolute form: through ASGI


def test_the_path_is_percent_decoded_and_the_query_kept_as_sent() -> None:
    assert target(b"/rest/v1/caf%C3%A9s?name=eq.caf%C3%A9") == ("/cafés", "name=eq.caf%C3%A9")
    assert target(b"/rest/v1/b%20c?x=1#frag") == ("/b c", "x=1")


def test_head_carries_defaults_cors_own_headers_and_length() -> None:
    out = Answer(206, b'[{"id":1}]', {"content-type": "application/json", "content-range": "0-0/2"})
    text = head(out, DEFAULTS, keep_alive=True).decode()
    lines = text.split("\r\n")
    assert lines[0] == "HTTP/1.1 206 Partial Content"
    assert lines[1:3] == ["date: Tue, 24 Nov 2026 03:00:00 GMT", "server: uvicorn"]
    assert "access-control-allow-origin: *" in lines
    assert "content-range: 0-0/2" in lines and "content-length: 10" in lines
    assert "connection: close" not in lines
    assert text.endswith("\r\n\r\n") and text.count("\r\n\r\n") == 1


def test_head_says_when_the_connection_closes() -> None:
    assert b"connection: close\r\n" in head(Answer(200, b""), DEFAULTS, keep_alive=False)


def test_a_header_that_would_split_the_response_becomes_a_500() -> None:
    for bad in ({"x-evil": "a\r\nset-cookie: s=1"}, {"x evil": "a"}, {"x-evil": "a\nb"}, {"x-nul": "a\x00"}):
        out = sendable(Answer(200, b"{}", bad))
        text = head(out, DEFAULTS, keep_alive=True).decode()
        assert text.startswith("HTTP/1.1 500 ") and "set-cookie" not in text and "evil" not in text
        assert out.body == error_answer(errors.internal_error()).body
    fine = Answer(200, b"{}", {"x-fine": "yes"})
    assert sendable(fine) is fine


def test_tabs_and_non_ascii_letters_are_valid_values() -> None:
    text = head(sendable(Answer(200, b"", {"x-note": "a\tb caf\xe9"})), DEFAULTS, keep_alive=True)
    assert b"x-note: a\tb caf\xe9\r\n" in text


def test_the_lane_finds_the_rest_service_behind_uvicorns_middleware() -> None:
    from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

    from server.serve.app import SupaliteApp
    from server.serve.rest_lane import rest_service

    service = object()
    app = SupaliteApp(rest_app=service, routes=[])  # type: ignore[arg-type]
    assert rest_service(ProxyHeadersMiddleware(app)) is service
    assert rest_service(app) is service
    assert rest_service(ProxyHeadersMiddleware(object())) is None  # another app: no lane  # type: ignore[arg-type]
    switched_off = SupaliteApp(rest_app=service, rest_lane=False, routes=[])  # type: ignore[arg-type]
    assert rest_service(ProxyHeadersMiddleware(switched_off)) is None  # SUPALITE_REST_LANE=off


def _header_lines(text: bytes) -> list[str]:
    return [line.partition(":")[0] for line in text.decode("latin-1").split("\r\n")[1:] if line]


def test_a_preflight_carries_each_cors_header_once() -> None:
    # Browsers refuse a preflight whose Access-Control-Allow-Origin comes twice ("*, *").
    from server.rest.response import preflight_answer

    names = _header_lines(head(sendable(preflight_answer("apikey")), DEFAULTS, keep_alive=True))
    assert names.count("access-control-allow-origin") == 1
    assert "access-control-allow-methods" in names and "access-control-expose-headers" in names


def test_a_cors_header_a_function_sets_replaces_the_default() -> None:
    out = Answer(200, b"", {"content-type": "text/plain", "access-control-allow-origin": "https://app.example"})
    text = head(sendable(out), DEFAULTS, keep_alive=True).decode()
    assert text.count("access-control-allow-origin") == 1
    assert "access-control-allow-origin: https://app.example\r\n" in text
    assert "access-control-expose-headers: " in text


def test_a_fragment_is_not_part_of_the_path() -> None:
    assert target(b"/rest/v1/books#top") == ("/books", "")
    assert target(b"/rest/v1/books#a?b=1") == ("/books", "")
