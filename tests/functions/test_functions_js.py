"""supabase-js `functions.invoke` (tests/js/functions.suite.mjs) against a server serving a
project's functions on Deno, one of them querying a table under RLS with the caller's JWT."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import psycopg
import pytest

from tests import harness
from tests.js.node_suite import needs_node, run_node_suite

FUNCTIONS = {
    "echo/index.ts": """
Deno.serve(async (req) => {
  const url = new URL(req.url);
  const type = req.headers.get("content-type");
  const custom = req.headers.get("x-custom");
  if (url.searchParams.get("as") === "text") {
    return new Response(`${req.method} ${type} ${await req.text()} ${custom}`);
  }
  return Response.json({ method: req.method, contentType: type, body: await req.json(), path: url.pathname, custom });
});
""",
    "reverse/index.ts": """
Deno.serve(async (req) => new Response(new Uint8Array(await req.arrayBuffer()).reverse(),
  { headers: { "content-type": "application/octet-stream" } }));
""",
    "events/index.ts": """
Deno.serve(() => new Response(new ReadableStream({
  async start(controller) {
    for (let i = 0; i < 3; i++) {
      controller.enqueue(new TextEncoder().encode(`data: ${i}\\n\\n`));
      await new Promise((r) => setTimeout(r, 30));
    }
    controller.close();
  },
}), { headers: { "content-type": "text/event-stream" } }));
""",
    "notes/index.ts": """
import { createClient } from "npm:@supabase/supabase-js@2";
Deno.serve(async (req) => {
  const supabase = createClient(Deno.env.get("SUPABASE_URL")!, Deno.env.get("SUPABASE_ANON_KEY")!, {
    global: { headers: { Authorization: req.headers.get("Authorization")! } },
    auth: { persistSession: false },
  });
  const { data, error } = await supabase.from("fn_notes").select("body").order("id");
  return Response.json({ notes: (data ?? []).map((row) => row.body), error });
});
""",
    "open/index.ts": """Deno.serve(() => new Response("anyone may call me"));""",
    "sleepy/index.ts": """Deno.serve(async () => { await new Promise((r) => setTimeout(r, 60_000)); return new Response("late"); });""",
    "throws/index.ts": """Deno.serve(() => { throw new Error("on purpose"); });""",
}

NOTES_TABLE = """
create table if not exists public.fn_notes (
  id bigint generated always as identity primary key,
  author uuid not null default auth.uid() references auth.users (id) on delete cascade,
  body text not null
);
alter table public.fn_notes enable row level security;
drop policy if exists "own notes" on public.fn_notes;
create policy "own notes" on public.fn_notes for all to authenticated
  using (author = (select auth.uid())) with check (author = (select auth.uid()));
grant select, insert on public.fn_notes to authenticated;
grant select on public.fn_notes to anon;
"""


@pytest.fixture(scope="module")
def server(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[harness.LiveServer]:
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(NOTES_TABLE)
        conn.execute("notify pgrst, 'reload schema'")
    root = tmp_path_factory.mktemp("project")
    functions = root / "supabase" / "functions"
    for name, text in FUNCTIONS.items():
        (functions / name).parent.mkdir(parents=True, exist_ok=True)
        (functions / name).write_text(text)
    (root / "supabase" / "config.toml").write_text("[functions.open]\nverify_jwt = false\n")
    live = harness.start_server(database_url, args=["--no-migrate"], extra_env={
        "SUPALITE_FUNCTIONS_DIR": str(functions), "SUPALITE_FUNCTIONS_WALL_CLOCK": "3",
        "GOTRUE_MAILER_AUTOCONFIRM": "true"})
    yield live
    live.stop()


@needs_node
def test_functions_invoke(server: harness.LiveServer) -> None:
    counts = run_node_suite("functions.suite.mjs", server)
    assert counts["fail"] == 0 and counts["pass"] >= 9


def test_npm_imports_are_served_from_the_cache_offline(server: harness.LiveServer) -> None:
    """After a first start fetched npm:@supabase/supabase-js, a server on the same data dir
    starts the function again with the network cut off (every fetch through a closed proxy)."""
    first = httpx.post(server.url + "/functions/v1/notes", headers={"Authorization": f"Bearer {server.anon_key}"},
                       timeout=60)  # its first start fetched the imports
    assert first.status_code == 200
    closed = f"http://127.0.0.1:{harness.free_port()}"
    offline = harness.start_server(server.database_url, args=["--no-migrate"], data_dir=server.settings.data_dir,
                                   extra_env={**{k: v for k, v in server.env.items() if k.startswith("SUPALITE_FUNCTIONS")},
                                              "HTTPS_PROXY": closed, "HTTP_PROXY": closed, "NO_PROXY": "127.0.0.1,localhost"})
    try:
        r = httpx.post(offline.url + "/functions/v1/notes", headers={"Authorization": f"Bearer {offline.anon_key}"},
                       timeout=60)
        assert (r.status_code, r.json()) == (200, {"notes": [], "error": None}), offline.log()[-3000:]
    finally:
        offline.stop()
