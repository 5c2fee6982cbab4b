"""Fixtures of the storage tests (each live server already has a scratch data dir of its own)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from server.provision.embedded import free_port


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    """A real S3 protocol server (moto in server mode)."""
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()
