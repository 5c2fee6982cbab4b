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
import tempfile
from collections import deque
from pathlib import Path

from server.auth.jwt import anon_key, service_role_key
from server.config import ConfigError, Settings, read_dotenv
from server.functions.catalog import FunctionSpec, functions_dir

log = logging.getLogger("supalite.functions")
BOOTSTRAP = Path(__file__).with_name("bootstrap.ts")
BOOT_TIMEOUT = 60.0  # seconds: a first start may fetch its npm: and jsr: imports
CHANGE_CHECK_EVERY = 1.0  # seconds between two looks at a function's files
LOG_LINES = 50  # the last lines of a function's output, kept for a boot error's log
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
        if dotenv is not None and dotenv.is_file():
            env.update(read_dotenv(dotenv))
    env.update({
        "SUPABASE_URL": settings.api_url,
        "SUPABASE_ANON_KEY": anon_key(settings),
        "SUPABASE_SERVICE_ROLE_KEY": service_role_key(settings),
        "SUPABASE_DB_URL": settings.database_url,
    })
    return env


class FunctionWorker:
    """One function's Deno process and the Unix socket it serves on."""

    def __init__(self, spec: FunctionSpec, settings: Settings) -> None:
        self.spec = spec
        self.settings = settings
        self.process: asyncio.subprocess.Process | None = None
        self.socket_path: str | None = None  # where the running process listens
        self.output: deque[str] = deque(maxlen=LOG_LINES)
        self._lock = asyncio.Lock()
        self._socket_dir: str | None = None
        self._reader: asyncio.Task[None] | None = None
        self._files: int = 0  # the newest mtime of its files when it started
        self._files_checked = 0.0

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None

    async def ready(self) -> str:
        """The socket of a running process, started (again) when needed. Raises BootError."""
        async with self._lock:
            if self.running and self.socket_path is not None and not self._files_changed():
                return self.socket_path
            await self.stop()
            try:
                return await self._start()
            except (ConfigError, OSError) as exc:  # an unreadable env file, no room for a socket
                await self.stop()
                raise BootError(f"function {self.spec.name} did not start: {exc}") from None

    async def _start(self) -> str:
        self._socket_dir = tempfile.mkdtemp(prefix="supalite-fn-")
        socket_path = os.path.join(self._socket_dir, "http.sock")
        deno_dir = self.settings.data_dir / "deno"
        deno_dir.mkdir(parents=True, exist_ok=True)
        # As the edge runtime: the network and its environment, its own files to read (all the
        # functions', for _shared), the temporary folder to write; nothing else of the machine.
        readable = ",".join(str(p) for p in (functions_dir(self.settings), self.spec.folder, self._socket_dir,
                                             tempfile.gettempdir()))
        args = [deno_binary(), "run", "--quiet", "--no-prompt", "--allow-net", "--allow-env",
                f"--allow-read={readable}", "--allow-sys", f"--allow-write={self._socket_dir},{tempfile.gettempdir()}",
                f"--v8-flags=--max-old-space-size={self.settings.functions_memory_mb}"]
        if self.spec.import_map is not None:
            args.append(f"--config={self.spec.import_map}" if self.spec.import_map.name.startswith("deno.")
                        else f"--import-map={self.spec.import_map}")
        args += [str(BOOTSTRAP), self.spec.entrypoint.as_uri()]
        env = {"DENO_TLS_CA_STORE": "mozilla,system",  # the machine's CAs too, as curl and pip trust them
               **{name: os.environ[name] for name in NETWORK_ENV if name in os.environ},
               **function_env(self.settings), "SUPALITE_FUNCTION_SOCKET": socket_path, "DENO_DIR": str(deno_dir),
               "NO_COLOR": "1", "DENO_NO_UPDATE_CHECK": "1", "TMPDIR": tempfile.gettempdir()}
        self._files = self._newest_file()
        self.output.clear()
        self.process = await asyncio.create_subprocess_exec(
            *args, env=env, cwd=self.spec.folder, stdin=asyncio.subprocess.PIPE,  # its end: bootstrap.ts
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, start_new_session=True)
        self._reader = asyncio.create_task(self._read_output(self.process))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + BOOT_TIMEOUT
        while not await _accepts(socket_path):
            if self.process.returncode is not None or loop.time() > deadline:
                await self.stop()
                raise BootError(f"function {self.spec.name} did not start: " + " | ".join(list(self.output)[-5:]))
            await asyncio.sleep(0.02)
        self.socket_path = socket_path
        log.info("function %s started (pid %d)", self.spec.name, self.process.pid)
        return socket_path

    async def _read_output(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdout is not None
        while line := await process.stdout.readline():
            text = line.decode(errors="replace").rstrip()
            self.output.append(text)
            log.info("[%s] %s", self.spec.name, text)

    async def stop(self) -> None:
        """Stop the process (its whole group: Deno's own children too) and forget it."""
        process, self.process = self.process, None
        self.socket_path = None
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
            self._reader = None
        if self._socket_dir is not None:
            shutil.rmtree(self._socket_dir, ignore_errors=True)
            self._socket_dir = None

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


async def _accepts(socket_path: str) -> bool:
    try:
        _, writer = await asyncio.open_unix_connection(socket_path)
    except OSError:
        return False
    writer.close()
    return True


class WorkerPool:
    """The workers by function name, started lazily and stopped together."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.workers: dict[str, FunctionWorker] = {}

    def worker(self, spec: FunctionSpec) -> FunctionWorker:
        worker = self.workers.get(spec.name)
        if worker is None or worker.spec != spec:  # config.toml changed its entrypoint or keys
            if worker is not None:
                asyncio.get_running_loop().create_task(worker.stop())
            worker = self.workers[spec.name] = FunctionWorker(spec, self.settings)
        return worker

    async def stop(self) -> None:
        await asyncio.gather(*(worker.stop() for worker in self.workers.values()), return_exceptions=True)
        self.workers.clear()
