// The shelf tells the truth: a failed download says it failed (never "démarré" for nothing),
// a failing upload says it is retrying (which try of how many) and gives up within seconds,
// and the landing page counts the books the database has.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BASE_URL, anonKey, apiSession, axeViolations, newPage, screenshot, useBrowser } from "./support.mjs";
import { VIEWPORTS, signIn } from "./browser.mjs";
import { PASSWORD, newAdmin, pdfBytes } from "./admin-support.mjs";

const b = useBrowser();

/** A book whose PDF the admin stores then removes again: its row stays, its file is gone. */
async function bookWithoutFile(admin, title) {
  const api = await apiSession(admin.email, admin.password);
  const name = `${Date.now()}_sans_fichier.pdf`;
  const stored = await fetch(`${BASE_URL}/storage/v1/object/books/${name}`, {
    method: "POST",
    headers: { ...api.headers, "content-type": "application/pdf" },
    body: pdfBytes(title),
  });
  assert.ok(stored.ok, `PDF stored: ${stored.status} ${await stored.text()}`);
  const row = await api.rest("books", {
    method: "POST",
    headers: { prefer: "return=representation" },
    body: JSON.stringify({ title, description: "Son fichier a été retiré du stockage.", pages: 1, file_size: 100, file_path: name, created_by: api.user.id }),
  });
  assert.ok(row.ok, `book row: ${row.status} ${await row.text()}`);
  const removed = await fetch(`${BASE_URL}/storage/v1/object/books`, {
    method: "DELETE",
    headers: api.headers,
    body: JSON.stringify({ prefixes: [name] }),
  });
  assert.ok(removed.ok, `PDF removed: ${removed.status} ${await removed.text()}`);
  await api.logout();
}

test("a book whose file is gone: the download says it failed, in French, and saves nothing", async () => {
  const admin = await newAdmin();
  const title = `Livre sans fichier ${Date.now()}`;
  await bookWithoutFile(admin, title);
  const { context, page } = await newPage(b.browser);
  await signIn(page, BASE_URL, admin.email, PASSWORD);
  await page.goto(`${BASE_URL}/livres`);
  const downloads = [];
  page.on("download", (d) => downloads.push(d));
  await page.getByRole("button", { name: `Télécharger ${title}` }).click();
  const failure = page.locator("[data-sonner-toast]").filter({ hasText: "Échec du téléchargement" });
  try {
    await failure.waitFor({ timeout: 10_000 });
  } catch (error) {
    throw new Error(`no failure toast; shown: ${JSON.stringify(await page.locator("[data-sonner-toast]").allInnerTexts())}`, { cause: error });
  }
  assert.match(await failure.innerText(), /introuvable/);
  await page.waitForTimeout(500);
  const toasts = (await page.locator("[data-sonner-toast]").allInnerTexts()).join(" | ");
  assert.doesNotMatch(toasts, /démarré|terminé/i, "a failed download is announced as started or done");
  assert.equal(downloads.length, 0, "something was saved");
  await screenshot(page, "book-download-failed-1280");
  assert.deepEqual(await axeViolations(page), []);
  await page.setViewportSize(VIEWPORTS.mobile);
  await screenshot(page, "book-download-failed-375");
  // The book's dialog on a phone: below the toasts' band.
  await page.getByRole("button", { name: `Voir le détail : ${title}` }).click();
  await page.getByRole("dialog").waitFor();
  await page.waitForTimeout(300);
  await screenshot(page, "book-dialog-375");
  await page.keyboard.press("Escape");
  await page.setViewportSize(VIEWPORTS.desktop);

  // A book whose file is there: in progress, then done, and the PDF is saved.
  const permitted = page.locator('[data-testid="book-card"][data-state="downloadable"]').filter({ hasNotText: title }).first();
  const [download] = await Promise.all([page.waitForEvent("download"), permitted.getByRole("button", { name: /^Télécharger/ }).click()]);
  assert.match((await download.path()) ?? "", /./);
  await page.locator("[data-sonner-toast]").filter({ hasText: "Téléchargement terminé" }).waitFor();
  await context.close();
});

test("a failing book upload says each retry with its count, then its French error after its last retry", async () => {
  const admin = await newAdmin();
  const { context, page } = await newPage(b.browser, VIEWPORTS.mobile);
  await signIn(page, BASE_URL, admin.email, PASSWORD);
  // Storage answers every TUS request with a server error.
  let attempts = 0;
  await page.route("**/storage/v1/upload/resumable**", (route) => {
    attempts += 1;
    return route.fulfill({ status: 503, contentType: "text/plain", body: "Service Unavailable" });
  });
  await page.goto(`${BASE_URL}/admin`);
  await page.getByRole("tab", { name: "Livres" }).click();
  await page.getByLabel("Titre", { exact: true }).fill("Livre en échec");
  await page.locator("#book-file").setInputFiles({ name: "echec.pdf", mimeType: "application/pdf", buffer: pdfBytes("Livre en échec") });
  await page.getByRole("button", { name: "Téléverser le livre" }).click();
  const status = page.getByTestId("upload-status");
  await status.filter({ hasText: /nouvelle tentative 1 sur 3/i }).waitFor({ timeout: 5_000 });
  await status.scrollIntoViewIfNeeded();
  await screenshot(page, "book-upload-retry-375");
  await status.filter({ hasText: /nouvelle tentative 2 sur 3/i }).waitFor({ timeout: 8_000 });
  const alert = page.getByRole("alert").filter({ hasText: "Échec du téléversement du PDF" });
  await alert.waitFor({ timeout: 20_000 });
  // Bounded by attempts, not by a clock: the first and its 3 retries, then the error.
  assert.equal(attempts, 4, `the upload was tried ${attempts} times`);
  assert.match(await alert.innerText(), /serveur/);
  await alert.scrollIntoViewIfNeeded();
  await screenshot(page, "book-upload-failed-375");
  assert.deepEqual(await axeViolations(page), []);
  await context.close();
});

test("the landing page counts the books of the database", async () => {
  const res = await fetch(`${BASE_URL}/rest/v1/books?select=id`, { headers: { apikey: await anonKey() } });
  const count = (await res.json()).length;
  const { context, page } = await newPage(b.browser, VIEWPORTS.desktop);
  await page.goto(`${BASE_URL}/`);
  // The hero's card "N livres · à télécharger".
  const claim = page.getByText(/^\d+ livres?$/);
  await claim.waitFor();
  assert.equal(await claim.innerText(), `${count} ${count > 1 ? "livres" : "livre"}`);
  await screenshot(page, "landing-1280");
  assert.deepEqual(await axeViolations(page), []);
  await context.close();
});
