"""Storage throughput and memory, as ratios measured in one run.

    .venv/bin/python bench/storage.py [--size-mb 100] [--big-mb 1024] [--tus-mb 200] [--tus-only]

Prints download MB/s of a 100 MB object divided by reading the same file from disk,
upload MB/s divided by writing the same file to disk, the server's peak RSS growth
while a 1 GB object is uploaded (aims: download >= 0.5, RSS growth < 50 MB), and the
same growth (VmRSS of the server process) during a 200 MB resumable
(TUS) upload sent in Supabase's 6 MB chunks.

For reference it also prints the loopback ceilings: the same client downloading the same
file from a bare socket server that answers with `sendfile` (no HTTP framework, no copy
through Python), and the download divided by that; the same client uploading the same
file to a bare socket server that reads it into a buffer and writes it to a file, flushed
to disk before its answer as the server's upload is, and the upload divided by that.

The upload is measured twice: against the server as configured by default (md5 ETags, the
upload's bytes hashed as they arrive) and against a second server on the same database run
with STORAGE_FILE_ETAG_ALGORITHM=mtime (nothing hashed), each divided by the same ceiling.
For reference it prints the MD5 throughput of one core of this machine: an md5-ETag upload
cannot be faster.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.figures import record
from tests import harness
from tests.storage import tus_client as tus

MB = 1024 * 1024
CHUNK = MB


def file_chunks(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as handle:
        while block := handle.read(CHUNK):
            yield block


def disk_read(path: Path) -> float:
    start = time.perf_counter()
    for _ in file_chunks(path):
        pass
    return time.perf_counter() - start


def disk_write(path: Path, target: Path) -> float:
    start = time.perf_counter()
    with open(target, "wb") as out:
        for block in file_chunks(path):
            out.write(block)
        out.flush()
    elapsed = time.perf_counter() - start
    target.unlink()
    return elapsed


def make_file(path: Path, size_mb: int) -> None:
    block = os.urandom(MB)
    with open(path, "wb") as out:
        for _ in range(size_mb):
            out.write(block)


def upload(client: httpx.Client, headers: dict[str, str], name: str, path: Path) -> float:
    start = time.perf_counter()
    response = client.post(f"/storage/v1/object/bench/{name}", content=file_chunks(path),
                           headers={**headers, "content-type": "application/octet-stream",
                                    "content-length": str(path.stat().st_size)})
    elapsed = time.perf_counter() - start
    response.raise_for_status()
    return elapsed


def download(client: httpx.Client, headers: dict[str, str], name: str) -> tuple[float, int]:
    """Timed with curl when present: httpx's own reading would be the bottleneck measured."""
    url = f"{str(client.base_url).rstrip('/')}/storage/v1/object/bench/{name}"
    curl = shutil.which("curl")
    start = time.perf_counter()
    if curl:
        out = subprocess.run([curl, "-sf", "-o", "/dev/null", "-w", "%{size_download}",
                              *[a for k, v in headers.items() for a in ("-H", f"{k}: {v}")], url],
                             capture_output=True, text=True, check=True)
        return time.perf_counter() - start, int(out.stdout)
    received = 0
    with client.stream("GET", url, headers=headers) as response:
        response.raise_for_status()
        for block in response.iter_raw(CHUNK):
            received += len(block)
    return time.perf_counter() - start, received


class RssPeak:
    """The resident bytes `measure()` reports when the block starts (`baseline`) and at
    their highest while it runs (`peak`), sampled by a thread."""

    def __init__(self, measure: Callable[[], int]) -> None:
        self.measure = measure
        self.baseline = self.peak = 0
        self._done = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._done.is_set():
            self.peak = max(self.peak, self.measure())
            time.sleep(0.01)

    def __enter__(self) -> RssPeak:
        self.baseline = self.peak = self.measure()
        self._sampler.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._done.set()
        self._sampler.join()


def resumable_upload(client: httpx.Client, headers: dict[str, str], pid: int, size_mb: int) -> None:
    """A TUS upload of `size_mb` in 6 MB PATCHes (bytes made on the fly); prints its speed and
    the server's VmRSS growth, peak and after."""
    chunk = 6 * MB
    total = size_mb * MB
    block = os.urandom(MB)
    auth = {**headers, "x-upsert": "true"}
    metadata: dict[str, str | None] = {"bucketName": "bench", "objectName": "resumable.bin", "contentType": "video/mp4"}
    server = psutil.Process(pid)

    def body(length: int) -> Iterator[bytes]:
        while length > 0:
            yield block[:min(MB, length)]
            length -= MB

    with RssPeak(lambda: server.memory_info().rss) as rss:  # VmRSS
        start = time.perf_counter()
        created = tus.create(client, auth, total, metadata)
        created.raise_for_status()
        offset = 0
        while offset < total:
            length = min(chunk, total - offset)
            sent = tus.patch(client, auth, created.headers["location"], offset, body(length),
                             **{"Content-Length": str(length)})
            sent.raise_for_status()
            offset = int(sent.headers["upload-offset"])
        elapsed = time.perf_counter() - start
    print(f"{size_mb} MB TUS upload (6 MB chunks) {size_mb / elapsed:7.1f} MB/s   server VmRSS growth "
          f"peak {(rss.peak - rss.baseline) / MB:.1f} MB, after {(rss.measure() - rss.baseline) / MB:.1f} MB"
          " (aim < 50)")


@contextmanager
def bare_server(answer: Callable[[socket.socket], None]) -> Iterator[int]:
    """A socket server on loopback (no HTTP framework) calling `answer` on each connection in
    turn; its port."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                answer(conn)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield listener.getsockname()[1]
    finally:
        listener.close()


def loopback_ceiling(path: Path, headers: dict[str, str]) -> float:
    """Seconds for the same client to fetch `path` from a bare `sendfile` socket server."""
    size = path.stat().st_size

    def answer(conn: socket.socket) -> None:
        with open(path, "rb") as handle:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % size)
            conn.sendfile(handle)

    with bare_server(answer) as port, httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=600) as raw:
        return min(download(raw, headers, "ceiling")[0] for _ in range(3))


def upload_ceiling(path: Path, headers: dict[str, str], rounds: int) -> float:
    """Seconds for the same client to send `path` to a bare socket server that writes it
    to a file and fsyncs it before answering (what any server must do for an upload)."""
    target = path.with_name("ceiling.bin")

    def receive(conn: socket.socket) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            head += conn.recv(65536)
        head, rest = head.split(b"\r\n\r\n", 1)
        length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:"))
        buffer = bytearray(CHUNK)
        view = memoryview(buffer)
        with open(target, "wb", buffering=0) as out:
            out.write(rest)
            remaining = length - len(rest)
            while remaining > 0:
                count = conn.recv_into(view[:min(CHUNK, remaining)])
                if not count:
                    break
                out.write(view[:count])
                remaining -= count
            os.fsync(out.fileno())
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

    try:
        with bare_server(receive) as port, httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=600) as raw:
            return min(upload(raw, headers, "ceiling", path) for _ in range(rounds))
    finally:
        target.unlink(missing_ok=True)


def md5_speed(seconds: float = 0.5) -> float:
    """MB/s one core hashes with MD5, over 1 MB blocks (what an md5-ETag upload does)."""
    block = os.urandom(MB)
    digest = hashlib.md5(usedforsecurity=False)
    hashed = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        digest.update(block)
        hashed += 1
    return hashed / elapsed


def fresh_database(owner_url: str, project_dir: Path) -> str:
    import psycopg
    from psycopg import sql

    from server.provision.project import migrate

    name = harness.unique_name("bench_storage")
    with psycopg.connect(owner_url, autocommit=True) as conn:
        conn.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
    url = harness.with_database(owner_url, name)
    project_dir.mkdir(parents=True, exist_ok=True)
    migrate(harness.base_settings(url, project_dir=project_dir), url)
    return url


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size-mb", type=int, default=100)
    parser.add_argument("--big-mb", type=int, default=1024)
    parser.add_argument("--tus-mb", type=int, default=200)
    parser.add_argument("--tus-only", action="store_true", help="only the resumable upload's memory")
    args = parser.parse_args()

    work = harness.scratch_dir("supalite-bench-storage-")
    clusters = harness.session_cluster()
    owner_url = next(clusters)
    server = mtime_server = None
    try:
        # Platform schema only (an empty project dir): the bench needs no app tables.
        database_url = fresh_database(owner_url, work / "project")

        def start(data_dir: Path, **env: str) -> harness.LiveServer:
            return harness.start_server(database_url, args=["--no-migrate"], data_dir=data_dir, extra_env={
                "SUPALITE_FILE_SIZE_LIMIT": str((max(args.big_mb, args.size_mb, args.tus_mb) + 16) * MB),
                "SUPALITE_PROJECT_DIR": str(work / "project"), **env})

        server = start(work / "data")
        headers = {"apikey": server.service_key, "Authorization": f"Bearer {server.service_key}"}
        sample = work / "sample.bin"
        make_file(sample, args.size_mb)
        with httpx.Client(base_url=server.url, timeout=600) as client:
            client.post("/storage/v1/bucket", json={"name": "bench"}, headers=headers).raise_for_status()
            resumable_upload(client, headers, server.process.pid, args.tus_mb)
            if args.tus_only:
                return
            disk_read(sample)  # warm the page cache for both sides alike
            read_s = min(disk_read(sample) for _ in range(3))
            write_s = min(disk_write(sample, work / "copy.bin") for _ in range(2))
            # The same database, its own stored files: a server whose ETags hash nothing.
            mtime_server = start(work / "data-mtime", STORAGE_FILE_ETAG_ALGORITHM="mtime")
            # Alternated with their ceiling, so all see the same load on the machine.
            up_s = up_mtime_s = up_ceiling_s = float("inf")
            with httpx.Client(base_url=mtime_server.url, timeout=600) as mtime_client:
                for _ in range(3):
                    up_s = min(up_s, upload(client, {**headers, "x-upsert": "true"}, "sample.bin", sample))
                    up_mtime_s = min(up_mtime_s, upload(mtime_client, {**headers, "x-upsert": "true"},
                                                        "sample-mtime.bin", sample))
                    up_ceiling_s = min(up_ceiling_s, upload_ceiling(sample, headers, 1))
            mtime_server.stop()
            mtime_server = None
            md5_mb_s = md5_speed()
            down_s, received = min(download(client, headers, "sample.bin") for _ in range(3))
            assert received == sample.stat().st_size
            size = args.size_mb
            print(f"disk read      {size / read_s:9.1f} MB/s")
            print(f"download       {size / down_s:9.1f} MB/s   ratio {read_s / down_s:.2f} (aim >= 0.5)")
            ceiling_s = loopback_ceiling(sample, headers)
            print(f"loopback ceiling {size / ceiling_s:7.1f} MB/s   download / ceiling {ceiling_s / down_s:.2f}")
            print(f"disk write     {size / write_s:9.1f} MB/s")
            print(f"upload         {size / up_s:9.1f} MB/s   ratio {write_s / up_s:.2f}")
            print(f"upload ceiling {size / up_ceiling_s:9.1f} MB/s   upload / ceiling {up_ceiling_s / up_s:.2f} (aim >= 0.5)")
            print(f"upload, mtime ETag {size / up_mtime_s:5.1f} MB/s   upload / ceiling {up_ceiling_s / up_mtime_s:.2f}"
                  " (aim >= 0.5)")
            print(f"MD5 on one core {md5_mb_s:8.1f} MB/s   (an md5-ETag upload cannot be faster)")
            record("storage", f"download {size} MB", f"{size / down_s:.0f} MB/s", ceiling_s / down_s,
                   f"loopback ceiling {size / ceiling_s:.0f} MB/s", ">= 0.5")
            record("storage", f"upload {size} MB", f"{size / up_s:.0f} MB/s, md5 ETag", up_ceiling_s / up_s,
                   f"loopback ceiling {size / up_ceiling_s:.0f} MB/s", ">= 0.5")
            record("storage", f"upload {size} MB, mtime ETag", f"{size / up_mtime_s:.0f} MB/s", up_ceiling_s / up_mtime_s,
                   f"loopback ceiling {size / up_ceiling_s:.0f} MB/s", ">= 0.5")
            record("storage", "MD5 on one core", f"{md5_mb_s:.0f} MB/s")
            sample.unlink()

            big = work / "big.bin"
            make_file(big, args.big_mb)
            pid = server.process.pid
            with RssPeak(lambda: harness.process_tree_rss(pid)) as rss:
                big_s = upload(client, headers, "big.bin", big)
            growth = (rss.peak - rss.baseline) / MB
            print(f"{args.big_mb} MB upload  {args.big_mb / big_s:9.1f} MB/s   peak RSS growth {growth:.1f} MB (aim < 50)")
            record("storage", f"upload {args.big_mb} MB", f"{args.big_mb / big_s:.0f} MB/s, peak RSS growth {growth:.1f} MB",
                   aim="RSS growth < 50 MB")
    finally:
        for running in (mtime_server, server):
            if running:
                running.stop()
        try:
            next(clusters)
        except StopIteration:
            pass
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
