"""STORAGE_FILE_ETAG_ALGORITHM: md5 by default (and when empty), mtime accepted, anything else refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.core.config import ConfigError
from server.provision.settings import load_settings
from server.storage.backends import FileBackend, make_backend


def test_md5_by_default_and_mtime_on_request(tmp_path: Path) -> None:
    default = load_settings({"SUPALITE_DATA_DIR": str(tmp_path)}, dotenv=None)
    assert default.storage_file_etag_algorithm == "md5"
    backend = make_backend(default)
    assert isinstance(backend, FileBackend) and backend.etag.digest() is not None
    mtime = load_settings({"SUPALITE_DATA_DIR": str(tmp_path), "STORAGE_FILE_ETAG_ALGORITHM": "mtime"}, dotenv=None)
    assert mtime.storage_file_etag_algorithm == "mtime"
    backend = make_backend(mtime)
    assert isinstance(backend, FileBackend) and backend.etag.digest() is None
    empty = load_settings({"STORAGE_FILE_ETAG_ALGORITHM": ""}, dotenv=None)
    assert empty.storage_file_etag_algorithm == "md5"  # as upstream: `... || 'md5'`


@pytest.mark.parametrize("value", ["sha256", "MD5", " mtime"])
def test_other_values_are_refused(value: str) -> None:
    with pytest.raises(ConfigError, match=r"STORAGE_FILE_ETAG_ALGORITHM must be 'md5' or 'mtime', not "):
        load_settings({"STORAGE_FILE_ETAG_ALGORITHM": value}, dotenv=None)
