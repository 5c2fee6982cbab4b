// Helpers of the resumable-upload browser tests and screenshots: large files, the TUS requests
// a page makes, the percents its progress bar showed, and a chunk held back so the page can be
// looked at mid-upload.
import { randomBytes } from "node:crypto";

export const RESUMABLE = "/storage/v1/upload/resumable";
const CHUNK = 6 * 1024 * 1024;

/** A PDF of about `size` bytes: one page and a stream of random bytes (so nothing compresses it). */
export function largePdf(title, size) {
  const head = Buffer.from(`%PDF-1.4\n% ${title}\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>\nendobj\n`, "latin1");
  const tail = Buffer.from("\nendstream\nendobj\ntrailer\n<< /Size 5 /Root 1 0 R >>\n%%EOF\n", "latin1");
  const length = Math.max(0, size - head.length - tail.length - 64);
  const streamHead = Buffer.from(`4 0 obj\n<< /Length ${length} >>\nstream\n`, "latin1");
  return Buffer.concat([head, streamHead, randomBytes(length), tail]);
}

/** Random bytes standing for a media file. */
export function mediaBytes(size) {
  return randomBytes(size);
}

/** How many 6 MiB chunks a file of `size` bytes is sent in. */
export const chunkCount = (size) => Math.max(1, Math.ceil(size / CHUNK));

/** Every TUS request the page makes (method, URL, headers), in order. */
export function recordResumableRequests(page) {
  const requests = [];
  const listener = (request) => {
    if (request.url().includes(RESUMABLE)) requests.push({ method: request.method(), url: request.url(), headers: request.headers() });
  };
  page.on("request", listener);
  return { requests, stop: () => page.off("request", listener), count: (method) => requests.filter((r) => r.method === method).length };
}

/** The Upload-Metadata header of a creation request, decoded. */
export function uploadMetadataOf(request) {
  const header = request.headers["upload-metadata"] ?? "";
  return Object.fromEntries(
    header
      .split(",")
      .filter(Boolean)
      .map((pair) => {
        const [key, value = ""] = pair.trim().split(" ");
        return [key, Buffer.from(value, "base64").toString("utf8")];
      }),
  );
}

/**
 * Holds back the next TUS request of `method` to an upload's URL until `release` or `abort` is
 * called; every other request goes through. `held` resolves once it is held.
 */
export async function holdRequest(page, method) {
  const pattern = `**${RESUMABLE}/**`;
  let heldRoute = null;
  let onHeld;
  const held = new Promise((resolve) => (onHeld = resolve));
  const handler = async (route) => {
    if (!heldRoute && route.request().method() === method) {
      heldRoute = route;
      onHeld();
      return;
    }
    await route.fallback();
  };
  await page.route(pattern, handler);
  const unroute = () => page.unroute(pattern, handler);
  return {
    held,
    release: async () => {
      await heldRoute?.continue();
      await unroute();
    },
    abort: async (code = "internetdisconnected") => {
      // The page may have dropped the request itself (a cancelled upload).
      await heldRoute?.abort(code).catch(() => undefined);
      await unroute();
    },
  };
}

/** Holds back the first PATCH: the second chunk (the first one goes with the creation). */
export const holdSecondChunk = (page) => holdRequest(page, "PATCH");

/** Records every percent the upload panel shows (its data-percent), from now on. */
export function recordPercents(page) {
  return page.evaluate(() => {
    window.__uploadPercents = [];
    const seen = () => {
      const panel = document.querySelector('[data-testid="upload-progress"]');
      const value = panel ? Number(panel.getAttribute("data-percent")) : null;
      const list = window.__uploadPercents;
      if (value !== null && list[list.length - 1] !== value) list.push(value);
    };
    new MutationObserver(seen).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-percent"] });
  });
}

export const percentsSeen = (page) => page.evaluate(() => window.__uploadPercents ?? []);

/** The percent the panel shows now (null without a panel). */
export async function shownPercent(page) {
  const panel = page.getByTestId("upload-progress");
  if (!(await panel.count())) return null;
  return Number(await panel.getAttribute("data-percent"));
}
