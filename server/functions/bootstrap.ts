// One Edge Function's process (server/functions/workers.py starts it): Deno.serve is made
// to listen on the Unix socket supalite gives, then the function's module is imported, as
// Supabase's edge runtime runs `Deno.serve(handler)` in a worker of its own.
const socketPath = Deno.env.get("SUPALITE_FUNCTION_SOCKET");
const entrypoint = Deno.args[0];
if (!socketPath || !entrypoint) {
  console.error("bootstrap: SUPALITE_FUNCTION_SOCKET and an entrypoint URL are required");
  Deno.exit(2);
}
Deno.env.delete("SUPALITE_FUNCTION_SOCKET");

// supalite holds this process's stdin open: when supalite ends, however it ends, stdin
// closes and the function goes with it rather than outliving the server.
(async () => {
  for await (const _ of Deno.stdin.readable) { /* nothing is ever written */ }
  Deno.exit(0);
})();

// The edge runtime's global: background work a function hands over after answering. This
// process outlives the request, so the work only has to be awaited somewhere.
// deno-lint-ignore no-explicit-any
const globals = globalThis as any;
globals.EdgeRuntime ??= {
  waitUntil(promise: Promise<unknown>) {
    promise.catch((error) => console.error("EdgeRuntime.waitUntil:", error));
  },
};

// An uncaught error in the handler: the edge runtime's answer, not Deno's bare 500.
function workerError(error: unknown): Response {
  console.error(error);
  return Response.json(
    { code: "WORKER_ERROR", message: "Function exited due to an error (please check logs)" },
    { status: 500 },
  );
}

type Handler = (request: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>;
type Options = { handler?: Handler; onError?: (error: unknown) => Response | Promise<Response>; signal?: AbortSignal };

const originalServe = Deno.serve.bind(Deno);
let served = false;

// deno-lint-ignore no-explicit-any
(Deno as any).serve = (first: Handler | Options, second?: Handler | Options) => {
  const options: Options = typeof first === "function" ? ((second as Options) ?? {}) : (first ?? {});
  const handler = typeof first === "function" ? first : ((second as Handler | undefined) ?? options.handler);
  if (!handler) throw new TypeError("Deno.serve needs a handler");
  if (served) throw new Error("Deno.serve was called twice: a function serves once");
  served = true;
  // The request as the function would see it behind Supabase's gateway: an http(s) URL with
  // the client's host (Deno names a Unix socket's requests http+unix://). The server's own
  // liveness probe is answered here, even while the function is busy with other requests.
  const asBehindTheGateway = (request: Request, info: Deno.ServeHandlerInfo) => {
    const url = new URL(request.url);
    if (url.pathname === "/_supalite/health") return new Response(null, { status: 204 });
    const scheme = request.headers.get("x-forwarded-proto") === "https" ? "https" : "http";
    return handler(new Request(`${scheme}://${url.host}${url.pathname}${url.search}`, request), info);
  };
  return originalServe(
    { path: socketPath, onListen() {}, onError: options.onError ?? workerError, signal: options.signal },
    asBehindTheGateway,
  );
};

await import(entrypoint);
if (!served) {
  console.error(`${entrypoint}: the function never called Deno.serve`);
  Deno.exit(1);
}
