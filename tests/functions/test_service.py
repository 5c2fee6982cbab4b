"""/functions/v1 against real Deno processes: a project folder with a few functions, one
server. What supabase-js sees of the same is in tests/js/functions.test.mjs."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests import harness

FUNCTIONS = {
    "hello/index.ts": """
Deno.serve(async (req) => {
  const url = new URL(req.url);
  const body = req.method === "GET" ? null : await req.text();
  return Response.json({
    path: url.pathname, query: url.search, method: req.method, body, requestUrl: req.url,
    custom: req.headers.get("x-custom"), env: Deno.env.get("GREETING"),
    url: Deno.env.get("SUPABASE_URL"), hasService: !!Deno.env.get("SUPABASE_SERVICE_ROLE_KEY"),
    leaked: Deno.env.get("SUPALITE_APP_FN_MARKER") ?? null,
    outside: await Deno.readTextFile("/etc/hostname").then(() => "read", (e) => e.name),
  }, { status: 201, headers: { "x-from": "function" } });
});
""",
    "throws/index.ts": """Deno.serve(() => { throw new Error("kaboom"); });""",
    "slow/index.ts": """Deno.serve(async () => { await new Promise((r) => setTimeout(r, 60_000)); return new Response("late"); });""",
    "broken/index.ts": """this is not typescript at all (""",
    "public/index.ts": """Deno.serve(() => new Response("open to all"));""",
    "editable/index.ts": """Deno.serve(() => new Response("as first written"));""",
    "background/index.ts": """
let finished = 0;
Deno.serve((req) => {
  if (new URL(req.url).searchParams.has("count")) return Response.json({ finished });
  EdgeRuntime.waitUntil(new Promise((resolve) => setTimeout(() => { finished += 1; resolve(null); }, 100)));
  return new Response("accepted", { status: 202 });
});
""",
    "stream/index.ts": """
Deno.serve(() => {
  const body = new ReadableStream({
    async start(controller) {
      for (let i = 0; i < 3; i++) {
        controller.enqueue(new TextEncoder().encode(`data: ${i}\\n\\n`));
        await new Promise((r) => setTimeout(r, 50));
      }
      controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
});
""",
    "hungry/index.ts": """
Deno.serve(() => {
  const hoard = [];
  for (;;) hoard.push(new Array(1_000_000).fill(Math.random()));
});
""",
    "forever/index.ts": """
let cancelled = 0;
Deno.serve((req) => {
  if (new URL(req.url).searchParams.has("count")) return Response.json({ cancelled });
  let timer: number;
  const body = new ReadableStream({
    start(controller) {
      timer = setInterval(() => controller.enqueue(new TextEncoder().encode("data: tick\\n\\n")), 20);
    },
    cancel() {
      clearInterval(timer);
      cancelled += 1;
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
});
""",
    "missing/index.ts": """
import nothing from "npm:@supalite-tests/no-such-package@1.0.0";
Deno.serve(() => new Response(String(nothing)));
""",
    "mapped/deno.json": '{ "imports": { "greeting": "./lib/greeting.ts" } }',
    "mapped/lib/greeting.ts": 'export const greeting = (name: string) => `bonjour ${name}`;',
    "mapped/index.ts": """
import { greeting } from "greeting";
import { shared } from "../_shared/util.ts";
Deno.serve(() => new Response(`${greeting("map")} ${shared}`));
""",
    "_shared/util.ts": 'export const shared = "and shared";',
    "_shared/aliased.ts": 'Deno.serve(() => new Response("from an entrypoint elsewhere"));',
    "hidden/index.ts": 'Deno.serve(() => new Response("should not be served"));',
    "mirror/index.ts": """Deno.serve((req) => new Response(req.body));""",
    "chatty/index.ts": """Deno.serve(() => { console.log("x".repeat(100_000)); return new Response("said a lot"); });""",
    "mixed/index.ts": """
Deno.serve(async (req) => {
  const slow = new URL(req.url).searchParams.has("slow");
  await new Promise((r) => setTimeout(r, slow ? 20_000 : 2_000));
  return new Response(slow ? "slow" : "quick");
});
""",
    "spinner/index.ts": """
Deno.serve((req) => {
  if (new URL(req.url).searchParams.has("spin")) for (;;) { /* stuck */ }
  return new Response(String(Deno.pid));
});
""",
    ".env": "GREETING=bonjour\n",
}


@pytest.fixture(scope="module")
def server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[harness.LiveServer]:
    root = tmp_path_factory.mktemp("project")
    functions = root / "supabase" / "functions"
    for name, text in FUNCTIONS.items():
        path = functions / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (functions / "_shared" / "loop.ts").symlink_to("loop.ts")  # resolving it loops
    (root / "supabase" / "config.toml").write_text(
        '[functions.public]\nverify_jwt = false\n[functions.hidden]\nenabled = false\n'
        '[functions.aliased]\nentrypoint = "./functions/_shared/aliased.ts"\n'
        '[functions.looped]\nentrypoint = "./functions/_shared/loop.ts"\n'
        f'[functions.overlong]\nentrypoint = "./functions/{"x" * 300}.ts"\n')
    live = harness.start_server(database_url, args=["--no-migrate"], extra_env={
        "SUPALITE_FUNCTIONS_DIR": str(functions), "SUPALITE_FUNCTIONS_WALL_CLOCK": "3",
        "SUPALITE_FUNCTIONS_MEMORY_MB": "64", "SUPALITE_APP_FN_MARKER": "the server's own",
        "SUPALITE_FILE_SIZE_LIMIT": "1000000"})
    yield live
    live.stop()


def call(server: harness.LiveServer, path: str, *, method: str = "POST", key: str | None = "anon",
         **kwargs: object) -> httpx.Response:
    headers = dict(kwargs.pop("headers", {}) or {})
    if key is not None:
        token = server.anon_key if key == "anon" else key
        headers.setdefault("Authorization", f"Bearer {token}")
    return httpx.request(method, server.url + "/functions/v1/" + path, headers=headers, timeout=90, **kwargs)


def test_request_passes_through_and_answer_comes_back(server: harness.LiveServer) -> None:
    r = call(server, "hello/sub/path?a=1&b=two", content=b'{"x":1}', headers={"x-custom": "yes"})
    assert r.status_code == 201, r.text
    assert r.headers["x-from"] == "function"
    assert r.json() == {"path": "/hello/sub/path", "query": "?a=1&b=two", "method": "POST", "body": '{"x":1}',
                        "custom": "yes", "env": "bonjour", "url": server.url, "hasService": True, "leaked": None,
                        "requestUrl": server.url + "/hello/sub/path?a=1&b=two",
                        "outside": "NotCapable"}


def test_a_chunked_body_passes_through_and_a_too_large_one_is_refused(server: harness.LiveServer) -> None:
    def pieces() -> Iterator[bytes]:
        yield b'{"part": '
        yield b'"one and two"}'

    r = call(server, "hello", content=pieces())  # no length: sent chunked
    assert (r.status_code, r.json()["body"]) == (201, '{"part": "one and two"}')

    r = call(server, "hello", content=b"x" * 1_500_000)  # the server's body limit is 1 MB here
    assert (r.status_code, r.json()) == (413, {"msg": "Request body too large"})
    assert call(server, "hello").status_code == 201


def test_a_function_s_deno_json_maps_its_imports_and_shared_code_is_reachable(server: harness.LiveServer) -> None:
    r = call(server, "mapped")
    assert (r.status_code, r.text) == (200, "bonjour map and shared")


def test_config_toml_names_an_entrypoint_or_disables_a_function(server: harness.LiveServer) -> None:
    assert call(server, "aliased").text == "from an entrypoint elsewhere"
    assert (call(server, "hidden").status_code, call(server, "hidden").text) == (404, "Function not found")


def test_a_function_streaming_a_large_body_back_while_reading_it(server: harness.LiveServer) -> None:
    body = bytes(range(256)) * 3500  # 896 KB: far beyond what the sockets buffer
    r = call(server, "mirror", content=body)
    assert r.status_code == 200 and r.content == body


def test_a_function_printing_long_lines_keeps_answering(server: harness.LiveServer) -> None:
    for _ in range(12):  # 1.2 MB of output in lines of 100 KB
        r = call(server, "chatty")
        assert (r.status_code, r.text) == (200, "said a lot")


def test_head_and_the_answer_s_own_headers(server: harness.LiveServer) -> None:
    with httpx.Client(headers={"Authorization": f"Bearer {server.anon_key}"}, timeout=60) as client:
        got = client.get(server.url + "/functions/v1/public", headers={"Authorization": "x"})
        heads = [client.head(server.url + "/functions/v1/public") for _ in range(2)]  # one connection
    assert got.headers["content-length"] == "11" and len(got.headers.get_list("date")) == 1
    for head in heads:
        assert (head.status_code, head.content, head.headers["content-length"]) == (200, b"", "11")


def test_jwt_is_verified_unless_the_function_opts_out(server: harness.LiveServer) -> None:
    r = call(server, "hello", key=None)
    assert (r.status_code, r.json()) == (401, {"msg": "Error: Missing authorization header"})
    r = call(server, "hello", key="not-a-jwt")
    assert (r.status_code, r.json()) == (401, {"msg": "Invalid JWT"})
    r = call(server, "hello", key=None, headers={"Authorization": "Basic abc"})
    assert (r.status_code, r.json()) == (401, {"msg": "Error: Auth header is not 'Bearer {token}'"})
    r = call(server, "public", key=None, method="GET")
    assert (r.status_code, r.text) == (200, "open to all")


def test_edge_runtime_wait_until_finishes_work_after_the_answer(server: harness.LiveServer) -> None:
    assert call(server, "background").status_code == 202
    deadline = time.monotonic() + 10
    while call(server, "background?count").json()["finished"] != 1:
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_unknown_function_is_404(server: harness.LiveServer) -> None:
    for name in ("nope", "%2e%2e", "_shared", "a%2Fb"):
        r = call(server, name)
        assert (r.status_code, r.text) == (404, "Function not found"), name


@pytest.mark.parametrize("name", ["a" * 256, "a" * 5000, "hello%0A", "1hello", "hel.lo", "looped", "overlong"])
def test_a_name_the_file_system_refuses_is_404_never_500(server: harness.LiveServer, name: str) -> None:
    """Too long for a folder (ENAMETOOLONG escaped the lookup: 500 and a traceback), not a
    slug (the CLI's rule, `$` matching before a newline included), or an entrypoint that
    config.toml names and the disk cannot resolve: the edge runtime's 404, with no token."""
    logged = len(server.log())
    r = call(server, name, method="GET", key=None)
    assert (r.status_code, r.text) == (404, "Function not found")
    assert call(server, "public", method="GET", key=None).text == "open to all"
    assert "Traceback" not in server.log()[logged:]


def test_a_throwing_function_is_a_worker_error(server: harness.LiveServer) -> None:
    r = call(server, "throws")
    assert r.status_code == 500
    assert r.json() == {"code": "WORKER_ERROR", "message": "Function exited due to an error (please check logs)"}


def test_a_function_that_does_not_boot_is_503(server: harness.LiveServer) -> None:
    r = call(server, "broken")
    assert r.status_code == 503
    assert r.json() == {"code": "BOOT_ERROR", "message": "Worker failed to boot (please check logs)"}


def test_an_import_that_cannot_be_fetched_is_a_boot_error_naming_it(server: harness.LiveServer) -> None:
    r = call(server, "missing")
    assert (r.status_code, r.json()["code"]) == (503, "BOOT_ERROR")
    assert "@supalite-tests/no-such-package" in server.log()


def test_wall_clock_limit_is_546_and_the_function_serves_again(server: harness.LiveServer) -> None:
    r = call(server, "slow")
    assert r.status_code == 546
    assert r.json()["code"] == "WORKER_LIMIT"
    assert call(server, "hello").status_code == 201  # other functions unaffected


def test_one_call_past_the_wall_clock_leaves_the_others_running(server: harness.LiveServer) -> None:
    with ThreadPoolExecutor(2) as pool:
        slow = pool.submit(call, server, "mixed?slow=1")
        time.sleep(1.5)
        quick = pool.submit(call, server, "mixed")
        assert slow.result().status_code == 546
        assert (quick.result().status_code, quick.result().text) == (200, "quick")


def test_a_function_stuck_in_a_loop_is_stopped_and_started_again(server: harness.LiveServer) -> None:
    first = call(server, "spinner").text
    r = call(server, "spinner?spin=1")
    assert (r.status_code, r.json()["code"]) == (546, "WORKER_LIMIT")
    again = call(server, "spinner")
    assert again.status_code == 200 and again.text != first  # a new process


def test_memory_limit_is_546(server: harness.LiveServer) -> None:
    r = call(server, "hungry")
    assert r.status_code == 546, r.text
    assert r.json()["code"] == "WORKER_LIMIT"


def test_streamed_answer_passes_through(server: harness.LiveServer) -> None:
    with httpx.stream("GET", server.url + "/functions/v1/stream", timeout=30,
                      headers={"Authorization": f"Bearer {server.anon_key}"}) as r:
        assert r.headers["content-type"] == "text/event-stream"
        events = [line for line in r.iter_lines() if line]
    assert events == ["data: 0", "data: 1", "data: 2"]


def test_a_client_leaving_a_stream_cancels_it_in_the_function(server: harness.LiveServer) -> None:
    with httpx.stream("GET", server.url + "/functions/v1/forever", timeout=30,
                      headers={"Authorization": f"Bearer {server.anon_key}"}) as r:
        assert next(line for line in r.iter_lines() if line) == "data: tick"
    deadline = time.monotonic() + 10
    while call(server, "forever?count", method="GET").json()["cancelled"] != 1:
        assert time.monotonic() < deadline, "the function's stream was never cancelled"
        time.sleep(0.1)


def test_editing_a_function_reloads_it(server: harness.LiveServer) -> None:
    assert call(server, "editable").text == "as first written"
    folder = Path(server.env["SUPALITE_FUNCTIONS_DIR"]) / "editable"
    (folder / "index.ts").write_text('Deno.serve(() => new Response("edited"));')
    deadline = time.monotonic() + 20
    while call(server, "editable").text != "edited":
        assert time.monotonic() < deadline
        time.sleep(0.3)


def test_a_busy_function_dies_with_a_killed_server(database_url: str, tmp_path: Path) -> None:
    """A function stuck in a loop never reads its closed stdin: the kernel ends it with the server."""
    import psutil

    folder = tmp_path / "functions" / "spinner"
    folder.mkdir(parents=True)
    (folder / "index.ts").write_text(FUNCTIONS["spinner/index.ts"])
    live = harness.start_server(database_url, args=["--no-migrate"],
                                extra_env={"SUPALITE_FUNCTIONS_DIR": str(folder.parent)})
    try:
        with pytest.raises(httpx.ReadTimeout):
            httpx.get(live.url + "/functions/v1/spinner?spin=1", timeout=1.5,
                      headers={"Authorization": f"Bearer {live.anon_key}"})
        deno = [p for p in psutil.Process(live.process.pid).children(recursive=True) if "deno" in p.name()]
        assert len(deno) == 1
        live.process.kill()
        live.process.wait()
        assert psutil.wait_procs(deno, timeout=5)[1] == [], "the function outlived the server"
    finally:
        live.stop()
