"""server/rest/api_request/payload.py: request bodies."""

from __future__ import annotations

import pytest

from server.rest import errors
from server.rest.api_request.payload import parse_csv_body


def test_csv_body_errors_are_400() -> None:
    with pytest.raises(errors.ApiError) as exc:
        parse_csv_body(b"a\n" + b"x" * 200_000 + b"\n")
    assert exc.value.status == 400 and exc.value.code == "PGRST102"
