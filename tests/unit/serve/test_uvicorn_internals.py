"""The REST lane and the bounded protocol (server.serve.http_protocol, server.serve.rest_lane) subclass
uvicorn's httptools protocol and request cycle and lean on names uvicorn does not promise.
pyproject pins uvicorn to the range tested; this test names every such dependency, so a new
uvicorn that renames one fails here, by name, rather than in a request."""

from __future__ import annotations

import inspect
import re

from uvicorn.protocols.http import httptools_impl

from server.serve import http_protocol, rest_lane

# Methods of HttpToolsProtocol the bounded protocol overrides or calls.
PROTOCOL_METHODS = [
    "connection_made", "connection_lost", "data_received", "on_message_begin", "on_url", "on_header",
    "on_headers_complete", "on_response_complete", "send_400_response", "handle_websocket_upgrade",
    "_start_asgi_task", "_unset_keepalive_if_required", "_should_upgrade", "_unsupported_upgrade_warning",
]
# Attributes HttpToolsProtocol sets on itself that the bounded protocol reads or replaces.
PROTOCOL_ATTRIBUTES = [
    "app", "cycle", "flow", "headers", "logger", "loop", "parser", "pipeline", "scope", "server_state",
    "timeout_keep_alive", "timeout_keep_alive_task", "transport", "url",
]
# Attributes RequestResponseCycle sets that RestCycle relies on.
CYCLE_ATTRIBUTES = [
    "body", "disconnected", "flow", "keep_alive", "message_event", "response_complete", "response_started",
    "transport",
]


def assigned_attributes(cls: type) -> set[str]:
    return set(re.findall(r"self\.(\w+)\s*(?::[^=\n]*)?=", inspect.getsource(cls)))


def test_the_protocol_methods_used_exist() -> None:
    missing = [name for name in PROTOCOL_METHODS if not callable(getattr(httptools_impl.HttpToolsProtocol, name, None))]
    assert missing == []


def test_the_protocol_attributes_used_are_set_by_uvicorn() -> None:
    missing = sorted(set(PROTOCOL_ATTRIBUTES) - assigned_attributes(httptools_impl.HttpToolsProtocol))
    assert missing == []


def test_the_cycle_attributes_used_are_set_by_uvicorn() -> None:
    missing = sorted(set(CYCLE_ATTRIBUTES) - assigned_attributes(httptools_impl.RequestResponseCycle))
    assert missing == []
    assert issubclass(rest_lane.RestCycle, httptools_impl.RequestResponseCycle)
    assert callable(getattr(httptools_impl.RequestResponseCycle, "run_asgi", None))


def test_the_status_lines_are_uvicorns() -> None:
    assert httptools_impl.STATUS_LINE[200].startswith(b"HTTP/1.1 200")
    assert issubclass(http_protocol.BoundedHttpToolsProtocol, httptools_impl.HttpToolsProtocol)
