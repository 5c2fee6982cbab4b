"""The Deno processes that run Edge Functions: one per function, started at its first
invocation (server/functions/bootstrap.ts makes its `Deno.serve` listen on a Unix socket of
ours), started again when its files changed or it died, stopped with the server.

A function's process gets the environment Supabase gives functions (SUPABASE_URL, the two
API keys, SUPABASE_DB_URL, and supabase/functions/.env), never the server's own, and a V8
heap of `functions_memory_mb`. Deno's module cache lives in the data folder, so npm: and
jsr: imports are fetched once and then served from it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import signal
import sys
import tempfile
from collections import deque
from pathlib import Path

from server.core.config import ConfigError, Settings, read_dotenv
from server.core.jwt import anon_key, service_role_key
from server.functions import upstream
from server.functions.catalog import FunctionSpec, functions_dir

log = logging.getLogger("supalite.functions")
BOOTSTRAP = Path(__file__).with_name("bootstrap.ts")
BOOT_TIMEOUT = 60.0  # seconds: a first start may fetch its npm: and jsr: imports
CHANGE_CHECK_EVERY = 1.0  # seconds between two looks at a function's files
LOG_LINES = 50  # the last lines of a function's output, kept for a boot error's log
LOG_LINE_BYTES = 8 * 1024  # of one line of its output, in the log
READ_OUTPUT_BYTES = 64 * 1024
PROBE_TIMEOUT = 1.0
# Answered by bootstrap.ts itself: a client's path always starts with a function's name,
# which cannot start with "_", so only the server can ask it.
PROBE_PATH = "/_supalite/health"
STOP_WAIT = 3.0
# Of the server's environment, only what Deno needs to fetch npm: and jsr: imports through
# the machine's network: its proxies and its trusted certificates (a corporate proxy's CA).
NETWORK_ENV = ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy",
               "SSL_CERT_FILE", "SSL_CERT_DIR", "DENO_CERT", "DENO_TLS_CA_STORE", "NPM_CONFIG_REGISTRY")


class BootError(Exception):
    """The function's process did not start serving (an error in its module, an import that
    cannot be fetched, no Deno.serve): its output says why, and went to the log."""


def deno_binary() -> str:
    """Deno from the `deno` package on PyPI (a project dependency), else one on PATH."""
    try:
        from deno import find_deno_bin  # type: ignore[import-untyped]

        return str(find_deno_bin())
    except (ImportError, FileNotFoundError):
        found = shutil.which("deno")
        if found is None:
            raise BootError("deno is not installed (pip install deno)") from None
        return found


def function_env(settings: Settings) -> dict[str, str]:
    """What a function finds in Deno.env: supabase/functions/.env, then the env file given
    (`functions serve --env-file`), under Supabase's own names, which neither can change."""
    env: dict[str, str] = {}
    for dotenv in (functions_dir(settings) / ".env", settings.functions_env_file):
        if dotenv is not None:  # read_dotenv: {} when there is no such file
            env.update(read_dotenv(dotenv))
    env.update({
        "SUPABASE_URL": settings.api_url,
        "SUPABASE_ANON_KEY": anon_key(settings),
        "SUPABASE_SERVICE_ROLE_KEY": service_role_key(settings),
        "SUPABASE_DB_URL": settings.database_url,
    })
    return env


class Process:
    """One start of a function: its Deno process, the private folder holding its socket and
    temporary files, and the task logging its output."""

    def __init__(self, name: str, folder: str) -> None:
        self.name = name
        self.folder = folder
        self.socket_path = os.path.join(folder, "http.sock")
        self.tmp = os.path.join(folder, "tmp")
        os.mkdir(self.tmp)
        self.process: asyncio.subprocess.Process | None = None
        self.output: deque[str] = deque(maxlen=LOG_LINES)
        self._reader: asyncio.Task[None] | None = None

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.returncode is None

    async def spawn(self, args: list[str], env: dict[str, str], cwd: Path) -> None:
        self.process = await asyncio.create_subprocess_exec(
            *args, env=env, cwd=cwd, stdin=asyncio.subprocess.PIPE,  # its end: bootstrap.ts
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, start_new_session=True,
            preexec_fn=_die_with_parent)
        self._reader = asyncio.create_task(self._log_output(self.process))

    async def _log_output(self, process: asyncio.subprocess.Process) -> None:
        """Its output to the log, line by line; a line of any length (a function may print
        megabytes at once) is cut for the log, never left unread (Deno would block on it)."""
        assert process.stdout is not None
        pending = b""
        while chunk := await process.stdout.read(READ_OUTPUT_BYTES):
            lines = (pending + chunk).split(b"\n")
            pending = lines.pop()[-LOG_LINE_BYTES:]
            for line in lines:
                self._line(line)
        if pending:
            self._line(pending)

    def _line(self, line: bytes) -> None:
        text = line[:LOG_LINE_BYTES].decode(errors="replace").rstrip()
        self.output.append(text)
        log.info("[%s] %s", self.name, text)

    async def stop(self) -> None:
        """Stop the process (its whole group: Deno's own children too); idempotent."""
        process = self.process
        if process is not None and process.returncode is None:
            try:
                os.killpg(process.pid, signal.SIGTERM)
                await asyncio.wait_for(process.wait(), STOP_WAIT)
            except (ProcessLookupError, PermissionError):
                pass
            except TimeoutError:
                os.killpg(process.pid, signal.SIGKILL)
                await process.wait()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)
        shutil.rmtree(self.folder, ignore_errors=True)


class FunctionWorker:
    """A function's current process, started at its first call and again when its files
    changed or it died."""

    def __init__(self, spec: FunctionSpec, settings: Settings) -> None:
        self.spec = spec
        self.settings = settings
        self.current: Process | None = None
        self._lock = asyncio.Lock()
        self._files: int = 0  # the newest mtime of its files when it started
        self._files_checked = 0.0

    async def ready(self) -> Process:
        """The running process, started (again) when needed. Raises BootError."""
        async with self._lock:
            current = self.current
            if current is not None and current.alive and not self._files_changed():
                return current
            await self.stop(current)
            try:
                return await self._start()
            except (ConfigError, OSError) as exc:  # an unreadable env file, no room for a socket
                await self.stop(self.current)
                raise BootError(f"function {self.spec.name} did not start: {exc}") from None

    async def _start(self) -> Process:
        started = Process(self.spec.name, tempfile.mkdtemp(prefix="supalite-fn-"))
        self.current = started
        deno_dir = self.settings.data_dir / "deno"
        deno_dir.mkdir(parents=True, exist_ok=True)
        # As the edge runtime: the network and its environment, its own files to read (all the
        # functions', for _shared), a private temporary folder; nothing else of the machine
        # (not the server's data, not the other functions' sockets).
        readable = ",".join(str(p) for p in (functions_dir(self.settings), self.spec.folder, started.folder))
        args = [deno_binary(), "run", "--quiet", "--no-prompt", "--allow-net", "--allow-env", "--allow-sys",
                f"--allow-read={readable}", f"--allow-write={started.folder}",
                f"--v8-flags=--max-old-space-size={self.settings.functions_memory_mb}"]
        if self.spec.import_map is not None:
            args.append(f"--config={self.spec.import_map}" if self.spec.import_map.name.startswith("deno.")
                        else f"--import-map={self.spec.import_map}")
        args += [str(BOOTSTRAP), self.spec.entrypoint.as_uri()]
        env = {"DENO_TLS_CA_STORE": "mozilla,system",  # the machine's CAs too, as curl and pip trust them
               **{name: os.environ[name] for name in NETWORK_ENV if name in os.environ},
               **function_env(self.settings), "SUPALITE_FUNCTION_SOCKET": started.socket_path,
               "DENO_DIR": str(deno_dir), "NO_COLOR": "1", "DENO_NO_UPDATE_CHECK": "1", "TMPDIR": started.tmp}
        self._files = self._newest_file()
        await started.spawn(args, env, self.spec.folder)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + BOOT_TIMEOUT
        while not await _accepts(started.socket_path):
            if self.current is not started or not started.alive or loop.time() > deadline:
                await self.stop(started)
                raise BootError(f"function {self.spec.name} did not start: " + " | ".join(list(started.output)[-5:]))
            await asyncio.sleep(0.02)
        assert started.process is not None
        log.info("function %s started (pid %d)", self.spec.name, started.process.pid)
        return started

    async def stop(self, which: Process | None = None) -> None:
        """Stop `which` (by default the current process). One that is no longer current (a
        reload or another call replaced it) is stopped without touching its successor."""
        which = which if which is not None else self.current
        if which is None:
            return
        if self.current is which:
            self.current = None
        await which.stop()

    def _files_changed(self) -> bool:
        """Whether a file of the function changed since it started (looked at once a second)."""
        now = asyncio.get_running_loop().time()
        if now - self._files_checked < CHANGE_CHECK_EVERY:
            return False
        self._files_checked = now
        return self._newest_file() != self._files

    def _newest_file(self) -> int:
        """The newest mtime among the function's folder, the shared `_shared` folder and its
        import map (a bounded walk: a function is a handful of files)."""
        newest, seen = 0, 0
        roots = [self.spec.folder, self.spec.folder.parent / "_shared"]
        files = [self.spec.entrypoint] + ([self.spec.import_map] if self.spec.import_map else [])
        for root in roots:
            for folder, dirs, names in os.walk(root):
                dirs[:] = [d for d in dirs if d not in ("node_modules", ".git")]
                files.extend(Path(folder) / name for name in names)
                seen += len(names)
                if seen > 2000:
                    break
        for path in files:
            try:
                newest = max(newest, path.stat().st_mtime_ns)
            except OSError:
                continue
        return newest

    async def healthy(self, which: Process, timeout: float = PROBE_TIMEOUT) -> bool:
        """Whether `which` still answers (its event loop is not stuck in a busy function)."""
        try:
            async with asyncio.timeout(timeout):
                answer = await upstream.request(which.socket_path, "GET", PROBE_PATH, [], None, None)
                await answer.body.aclose()  # type: ignore[attr-defined]
        except (upstream.UpstreamError, TimeoutError):
            return False
        return answer.status == 204


async def _accepts(socket_path: str) -> bool:
    try:
        _, writer = await asyncio.open_unix_connection(socket_path)
    except OSError:
        return False
    writer.close()
    return True


def _die_with_parent() -> None:
    """In the child, before Deno runs: killed when the server dies, however it dies (a busy
    function never gets to notice its stdin closing). Linux only; elsewhere stdin does it."""
    if sys.platform.startswith("linux"):
        import ctypes

        PR_SET_PDEATHSIG = 1
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class WorkerPool:
    """The workers by function name, started lazily and stopped together."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.workers: dict[str, FunctionWorker] = {}
        self._stopping: set[asyncio.Task[None]] = set()

    def worker(self, spec: FunctionSpec) -> FunctionWorker:
        worker = self.workers.get(spec.name)
        if worker is not None and _runs_the_same(worker.spec, spec):
            worker.spec = spec  # verify_jwt is the service's business, not the process's
            return worker
        if worker is not None:  # config.toml gave it another entrypoint or import map
            task = asyncio.get_running_loop().create_task(worker.stop())
            self._stopping.add(task)
            task.add_done_callback(self._stopping.discard)
        worker = self.workers[spec.name] = FunctionWorker(spec, self.settings)
        return worker

    async def stop(self) -> None:
        await asyncio.gather(*(worker.stop() for worker in self.workers.values()), *self._stopping,
                             return_exceptions=True)
        self.workers.clear()


def _runs_the_same(old: FunctionSpec, new: FunctionSpec) -> bool:
    return (old.folder, old.entrypoint, old.import_map) == (new.folder, new.entrypoint, new.import_map)
