// Shared helpers of the browser tests: the server under test, axe, tokens, unique e-mails.
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { after, before } from "node:test";
import { launch } from "./browser.mjs";

export const BASE_URL = process.env.BASE_URL;
if (!BASE_URL) throw new Error("BASE_URL is not set (tests/e2e/test_browser.py starts the server)");

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/** One browser per test file. */
export function useBrowser() {
  const holder = {};
  before(async () => {
    holder.browser = await launch();
  });
  after(async () => {
    await holder.browser?.close();
  });
  return holder;
}

export async function newPage(browser, viewport = { width: 1280, height: 800 }) {
  const context = await browser.newContext({ viewport, locale: "fr-FR", acceptDownloads: true });
  const page = await context.newPage();
  return { context, page };
}

/**
 * Serious or critical axe violations of the current page (rule id and first target), once
 * its finite transitions have ended: a button measured mid-fade (enabled a moment ago, from
 * disabled's half opacity) reads as low contrast. Toasts are left out: they come and go.
 */
export async function axeViolations(page) {
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => a.effect?.getTiming().iterations !== Infinity)
        .map((a) => a.finished.catch(() => undefined)),
    ),
  );
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run({ exclude: [["[data-sonner-toaster]"]] }, { resultTypes: ["violations"] });
    return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes[0]?.target?.join(" ")}`);
  });
  return result;
}

/** A screenshot of the page as `<name>.png` under E2E_SHOTS_DIR, when it is set (`make screenshots`-style review). */
export async function screenshot(page, name, options = {}) {
  const dir = process.env.E2E_SHOTS_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: `${dir}/${name}.png`, ...options });
}

export function uniqueEmail(prefix) {
  return `${prefix}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.org`;
}

export async function anonKey() {
  const config = await (await fetch(`${BASE_URL}/config.js`)).text();
  return config.match(/"supabaseAnonKey":\s*"([^"]+)"/)[1];
}

/** Password grant through the API (a session of its own), for set-up steps. */
export async function apiSession(email, password) {
  const key = await anonKey();
  const res = await fetch(`${BASE_URL}/auth/v1/token?grant_type=password`, {
    method: "POST",
    headers: { apikey: key, "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`sign-in of ${email} failed: ${JSON.stringify(body)}`);
  const headers = { apikey: key, authorization: `Bearer ${body.access_token}`, "content-type": "application/json" };
  return {
    user: body.user,
    headers,
    rest: (path, init = {}) => fetch(`${BASE_URL}/rest/v1/${path}`, { ...init, headers: { ...headers, ...(init.headers || {}) } }),
    logout: () => fetch(`${BASE_URL}/auth/v1/logout`, { method: "POST", headers }),
  };
}

/** The access token the app keeps in localStorage. */
export async function pageAccessToken(page) {
  return page.evaluate(() => {
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      if (/^sb-.*-auth-token$/.test(k)) return JSON.parse(localStorage.getItem(k)).access_token;
    }
    return null;
  });
}

/** A new confirmed account with no session left open (signed up, then signed out of that session). */
export async function newAccount(prefix, password = "device-pass-1") {
  const email = uniqueEmail(prefix);
  const key = await anonKey();
  const res = await fetch(`${BASE_URL}/auth/v1/signup`, {
    method: "POST",
    headers: { apikey: key, "content-type": "application/json" },
    body: JSON.stringify({ email, password, data: { full_name: `Compte ${prefix}` } }),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`sign-up of ${email} failed: ${JSON.stringify(body)}`);
  await fetch(`${BASE_URL}/auth/v1/logout?scope=local`, { method: "POST", headers: { apikey: key, authorization: `Bearer ${body.access_token}` } });
  return { email, password, name: `Compte ${prefix}` };
}

/** Asks for a password-recovery mail, as the recovery page does (same redirect). */
export async function requestRecovery(email) {
  const redirect = encodeURIComponent(`${BASE_URL}/mot-de-passe-oublie`);
  const res = await fetch(`${BASE_URL}/auth/v1/recover?redirect_to=${redirect}`, {
    method: "POST",
    headers: { apikey: await anonKey(), "content-type": "application/json" },
    body: JSON.stringify({ email }),
  });
  if (!res.ok) throw new Error(`recovery of ${email} failed: ${res.status} ${await res.text()}`);
}

/** The link of the latest mail to `email` in the dev inbox. */
export async function latestMailLink(email) {
  const res = await fetch(`${BASE_URL}/inbox/api/v1/messages?email=${encodeURIComponent(email)}&limit=1`);
  const { messages } = await res.json();
  if (!messages?.length) throw new Error(`no mail for ${email}`);
  return messages[0].Link;
}

/** Renews the page's stored session with its refresh token, as supabase-js would; answers the HTTP status. */
export async function refreshPageSession(page) {
  const key = await anonKey();
  return page.evaluate(async ({ base, apikey }) => {
    const name = Object.keys(localStorage).find((k) => /^sb-.*-auth-token$/.test(k));
    const stored = JSON.parse(localStorage.getItem(name));
    const res = await fetch(`${base}/auth/v1/token?grant_type=refresh_token`, {
      method: "POST",
      headers: { apikey, "content-type": "application/json" },
      body: JSON.stringify({ refresh_token: stored.refresh_token }),
    });
    if (res.ok) localStorage.setItem(name, JSON.stringify({ ...stored, ...(await res.json()) }));
    return res.status;
  }, { base: BASE_URL, apikey: key });
}
