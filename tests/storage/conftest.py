"""Storage tests run their server on a data directory of their own, so stored objects
never land in the working tree's `.data`."""

from __future__ import annotations

import shutil
from typing import Iterator

import pytest

from tests import harness


@pytest.fixture(scope="module")
def live_server(database_url: str) -> Iterator[harness.LiveServer]:
    data_dir = harness.scratch_dir("supalite-storage-")
    server = harness.start_server(database_url, args=["--no-migrate"], data_dir=data_dir)
    yield server
    server.stop()
    shutil.rmtree(data_dir, ignore_errors=True)
