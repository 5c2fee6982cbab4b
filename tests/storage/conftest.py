"""Storage tests run their server on a data directory of their own, so stored objects
never land in the working tree's `.data`."""

from __future__ import annotations

import shutil
from typing import Iterator

import pytest

from server.db.embedded import free_port
from tests import harness


@pytest.fixture(scope="module")
def live_server(database_url: str) -> Iterator[harness.LiveServer]:
    data_dir = harness.scratch_dir("supalite-storage-")
    server = harness.start_server(database_url, args=["--no-migrate"], data_dir=data_dir)
    yield server
    server.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    """A real S3 protocol server (moto in server mode)."""
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()
