// Helpers of the admin browser tests: fresh accounts, an admin of their own, files.
import { BASE_URL, anonKey, apiSession, uniqueEmail } from "./support.mjs";
import { DEMO } from "./browser.mjs";

export const PASSWORD = "admin-e2e-123";

/** A new confirmed account through the API (its session is ended right away). */
export async function signUp(prefix, data = {}) {
  const email = uniqueEmail(prefix);
  const key = await anonKey();
  const res = await fetch(`${BASE_URL}/auth/v1/signup`, {
    method: "POST",
    headers: { apikey: key, "content-type": "application/json" },
    body: JSON.stringify({ email, password: PASSWORD, data }),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(`sign-up of ${email} failed: ${JSON.stringify(body)}`);
  if (body.access_token) await fetch(`${BASE_URL}/auth/v1/logout`, { method: "POST", headers: { apikey: key, authorization: `Bearer ${body.access_token}` } });
  return { email, password: PASSWORD, id: body.user?.id ?? body.id, name: data.full_name };
}

/** A fresh admin: the suite never uses up the demo admin's two devices. */
export async function newAdmin() {
  const account = await signUp("admin-e2e", { full_name: "Admin E2E" });
  const owner = await apiSession(DEMO.admin.email, DEMO.admin.password);
  const res = await owner.rest(`profiles?id=eq.${account.id}`, { method: "PATCH", body: JSON.stringify({ role: "admin" }) });
  await owner.logout();
  if (!res.ok) throw new Error(`promotion failed: ${res.status} ${await res.text()}`);
  return account;
}

/** REST and storage calls with the token of a signed-in page. */
export function withToken(token, key) {
  const headers = { apikey: key, authorization: `Bearer ${token}` };
  return {
    rest: async (path) => {
      const res = await fetch(`${BASE_URL}/rest/v1/${path}`, { headers });
      if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
      return res.json();
    },
    rpc: async (name, args) => {
      const res = await fetch(`${BASE_URL}/rest/v1/rpc/${name}`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify(args) });
      return res.json();
    },
    objectStatus: async (bucket, path) => (await fetch(`${BASE_URL}/storage/v1/object/authenticated/${bucket}/${path}`, { headers })).status,
  };
}

export const publicObjectStatus = async (bucket, path) => (await fetch(`${BASE_URL}/storage/v1/object/public/${bucket}/${path}`)).status;

export async function publicObject(bucket, path) {
  const res = await fetch(`${BASE_URL}/storage/v1/object/public/${bucket}/${path}`);
  if (!res.ok) throw new Error(`cover ${path}: ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

/** A small valid PDF. */
export function pdfBytes(title) {
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
  ];
  let out = `%PDF-1.4\n% ${title}\n`;
  const offsets = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

/** A PNG drawn by the page's canvas (partly transparent, to check the white background). */
export async function pngBytes(page, width, height) {
  const b64 = await page.evaluate(([w, h]) => {
    const c = document.createElement("canvas");
    c.width = w;
    c.height = h;
    const ctx = c.getContext("2d");
    ctx.fillStyle = "#1d4ed8";
    ctx.fillRect(0, 0, w, h / 2);
    return c.toDataURL("image/png").split(",")[1];
  }, [width, height]);
  return Buffer.from(b64, "base64");
}

/** Width and height of a JPEG (from its start-of-frame marker). */
export function jpegSize(buf) {
  if (buf[0] !== 0xff || buf[1] !== 0xd8) throw new Error("not a JPEG");
  let i = 2;
  while (i < buf.length) {
    if (buf[i] !== 0xff) throw new Error("bad JPEG marker");
    const marker = buf[i + 1];
    const length = buf.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xc3) return { height: buf.readUInt16BE(i + 5), width: buf.readUInt16BE(i + 7) };
    i += 2 + length;
  }
  throw new Error("no frame in JPEG");
}

/**
 * Sideways overflow in px (0 when everything fits): of the document, of the widest open dialog
 * and of the widest table scroller, so nothing scrolls sideways even inside a dialog.
 */
export function sidewaysOverflow(page) {
  return page.evaluate(() => {
    const over = (el) => el.scrollWidth - el.clientWidth;
    const widest = (selector) => Math.max(0, ...[...document.querySelectorAll(selector)].map(over));
    return { document: over(document.documentElement), dialog: widest('[role="dialog"], [role="alertdialog"]'), table: widest('[data-slot="table-container"]') };
  });
}

/** Every element of a locator lies within the viewport's width. */
export async function withinViewport(page, locator) {
  const width = page.viewportSize().width;
  const boxes = await locator.evaluateAll((els) => els.map((el) => {
    const r = el.getBoundingClientRect();
    return { text: (el.getAttribute("aria-label") || el.textContent || "").trim(), left: Math.round(r.left), right: Math.round(r.right) };
  }));
  if (boxes.length === 0) throw new Error("nothing to measure");
  return boxes.filter((b) => b.left < 0 || b.right > width);
}

/** The selected option's text is not cut by the select's box (arrow padding included). */
export function selectTextFits(select) {
  return select.evaluate((el) => {
    const style = getComputedStyle(el);
    const ctx = document.createElement("canvas").getContext("2d");
    ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const text = ctx.measureText(el.options[el.selectedIndex].text).width;
    return text <= el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  });
}

/** Waits for running CSS transitions and animations to end (axe measures colours mid-fade). */
export function animationsDone(page) {
  return page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== "running"));
}
