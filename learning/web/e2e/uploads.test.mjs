// The admin's large uploads go through resumable uploads (TUS at /storage/v1/upload/resumable):
// a book PDF and a lesson file of a few MB in 6 MiB chunks, the real progress shown while a
// chunk is held back, a cancelled upload, and one cut by a lost connection that resumes on the
// next try. The stored objects are read back through the storage API.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { BASE_URL, anonKey, axeViolations, newPage, pageAccessToken } from "./support.mjs";
import { launch, signIn, horizontalOverflow } from "./browser.mjs";
import { newAdmin } from "./admin-support.mjs";
import { chunkCount, holdRequest, holdSecondChunk, largePdf, mediaBytes, percentsSeen, recordPercents, recordResumableRequests, shownPercent, uploadMetadataOf } from "./upload-support.mjs";

const b = {};
const state = {};

// One admin, on a computer and on a phone: two devices, the account's limit.
before(async () => {
  b.browser = await launch();
  state.account = await newAdmin();
  state.desktop = await newPage(b.browser);
  state.phone = await newPage(b.browser, { width: 375, height: 812 });
  for (const { page } of [state.desktop, state.phone]) await signIn(page, BASE_URL, state.account.email, state.account.password);
  state.key = await anonKey();
  state.token = await pageAccessToken(state.desktop.page);
});
after(async () => {
  // The suites share one seeded server: leave its shelf and buckets as they were.
  if (state.token) {
    const books = await rest(`books?created_by=eq.${state.account.id}&select=file_path`, { method: "DELETE", headers: { prefer: "return=representation" } });
    const paths = books.map((b) => b.file_path).filter(Boolean);
    if (paths.length) await fetch(`${BASE_URL}/storage/v1/object/books`, { method: "DELETE", headers: { ...headers(), "content-type": "application/json" }, body: JSON.stringify({ prefixes: paths }) });
    await rest(`courses?created_by=eq.${state.account.id}&select=id`, { method: "DELETE", headers: { prefer: "return=representation" } });
  }
  await state.desktop?.context.close();
  await state.phone?.context.close();
  await b.browser?.close();
});

const headers = () => ({ apikey: state.key, authorization: `Bearer ${state.token}` });

async function rest(path, init = {}) {
  const res = await fetch(`${BASE_URL}/rest/v1/${path}`, { ...init, headers: { ...headers(), "content-type": "application/json", ...(init.headers || {}) } });
  if (!res.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** The stored object as the storage API describes it (null when there is none). */
async function objectInfo(bucket, path) {
  const res = await fetch(`${BASE_URL}/storage/v1/object/info/authenticated/${bucket}/${path}`, { headers: headers() });
  return res.ok ? res.json() : null;
}

async function objectBytes(bucket, path) {
  const res = await fetch(`${BASE_URL}/storage/v1/object/authenticated/${bucket}/${path}`, { headers: headers() });
  if (!res.ok) throw new Error(`download ${bucket}/${path}: ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

async function toast(page, text) {
  await page.locator("[data-sonner-toast]").filter({ hasText: text }).first().waitFor();
}

/** While a chunk is held back, the panel shows a percent strictly between 0 and 100. */
async function midUploadPercent(page) {
  const panel = page.getByTestId("upload-progress");
  await panel.waitFor();
  await page.waitForFunction(() => {
    const p = Number(document.querySelector('[data-testid="upload-progress"]')?.getAttribute("data-percent"));
    return p > 0 && p < 100;
  });
  return shownPercent(page);
}

function assertRising(percents) {
  assert.ok(percents.length >= 2, `progress moved: ${JSON.stringify(percents)}`);
  for (let i = 1; i < percents.length; i++) assert.ok(percents[i] >= percents[i - 1], `progress never goes back: ${JSON.stringify(percents)}`);
  assert.ok(percents.some((p) => p > 0 && p < 100), `a value between 0 and 100 was shown: ${JSON.stringify(percents)}`);
  assert.equal(percents.at(-1), 100);
}

async function openBooks(page) {
  await page.goto(`${BASE_URL}/admin`);
  await page.getByRole("tab", { name: "Livres" }).click();
  await page.getByRole("heading", { name: "Ajouter un livre" }).waitFor();
}

test("a book PDF of a few MB goes up in 6 MiB chunks with its real progress, then its row is inserted", async () => {
  const { page } = state.desktop;
  await openBooks(page);
  const title = `Gros livre ${Date.now()}`;
  const pdf = largePdf(title, 14 * 1024 * 1024);
  await page.getByLabel("Titre", { exact: true }).fill(title);
  await page.getByLabel("Nombre de pages").fill("320");
  await page.getByLabel("Fichier PDF").setInputFiles({ name: "gros livre.pdf", mimeType: "application/pdf", buffer: pdf });
  const tus = recordResumableRequests(page);
  await recordPercents(page);
  const hold = await holdSecondChunk(page);
  await page.getByRole("button", { name: "Téléverser le livre" }).click();
  await hold.held;

  // Mid-upload: the first chunk is stored, the bar and the bytes say so, the form waits.
  const percent = await midUploadPercent(page);
  assert.ok(percent > 0 && percent < 100);
  await page.getByTestId("upload-bytes").filter({ hasText: "/ 14,0 Mo" }).waitFor();
  assert.equal(await page.getByRole("button", { name: "Téléverser le livre" }).isDisabled(), true);
  await page.getByRole("progressbar").waitFor();
  assert.deepEqual(await axeViolations(page), []);
  await hold.release();

  await toast(page, "Livre téléchargé");
  await page.locator(`[data-testid="admin-book"][data-title="${title}"]`).waitFor();
  tus.stop();
  assertRising(await percentsSeen(page));

  // One creation carrying the first chunk, then one PATCH per further chunk.
  assert.equal(tus.count("POST"), 1);
  assert.equal(tus.count("PATCH"), chunkCount(pdf.length) - 1);
  const creation = tus.requests.find((r) => r.method === "POST");
  assert.equal(creation.headers["x-upsert"], "false");
  assert.match(creation.headers.authorization, /^Bearer /);
  const metadata = uploadMetadataOf(creation);
  assert.equal(metadata.bucketName, "books");
  assert.equal(metadata.contentType, "application/pdf");
  assert.match(metadata.objectName, /^\d+_gros_livre\.pdf$/);

  const [book] = await rest(`books?title=eq.${encodeURIComponent(title)}&select=id,pages,file_path,file_size`);
  assert.equal(book.file_path, metadata.objectName);
  assert.equal(book.pages, 320);
  assert.equal(book.file_size, pdf.length);
  const info = await objectInfo("books", book.file_path);
  assert.equal(info.content_type, "application/pdf");
  assert.equal(info.size, pdf.length);
  assert.equal(info.cache_control, "max-age=3600");
  assert.ok((await objectBytes("books", book.file_path)).equals(pdf), "the stored PDF is the file sent");
});

test("on a phone, a lesson file goes up with its progress and is stored under the course with its type", async () => {
  const { page } = state.phone;
  const [course] = await rest("courses", {
    method: "POST",
    headers: { prefer: "return=representation" },
    body: JSON.stringify({ title: `Cours uploads ${Date.now()}`, visibility: "private", created_by: state.account.id }),
  });
  await page.goto(`${BASE_URL}/admin/course/${course.id}`);
  await page.getByRole("heading", { name: "Ajouter du contenu" }).waitFor();
  const audio = mediaBytes(8 * 1024 * 1024 + 12345);
  // A long name: the panel that repeats it must still fit the phone's width.
  const name = "dialogue au restaurant niveau intermediaire partie 1.mp3";
  const title = "dialogue au restaurant niveau intermediaire partie 1";
  await page.getByLabel("Fichier", { exact: true }).setInputFiles({ name, mimeType: "audio/mpeg", buffer: audio });
  assert.equal(await page.getByLabel("Titre du contenu").inputValue(), title);
  // mp3 is not one of the detected extensions: the admin picks the type.
  await page.getByLabel("Type de fichier").selectOption("audio");
  const tus = recordResumableRequests(page);
  await recordPercents(page);
  const hold = await holdSecondChunk(page);
  await page.getByRole("button", { name: "Ajouter le contenu" }).click();
  await hold.held;
  const percent = await midUploadPercent(page);
  assert.ok(percent > 0 && percent < 100);
  assert.equal(await horizontalOverflow(page), 0, "the progress panel fits a phone");
  const cancel = page.getByRole("button", { name: "Annuler le téléversement" });
  const box = await cancel.boundingBox();
  assert.ok(box && box.x >= 0 && box.x + box.width <= 375, "the cancel button is within the screen");
  await hold.release();

  await toast(page, "Contenu ajouté");
  await page.locator(`[data-testid="content-item"][data-title="${title}"]`).waitFor();
  tus.stop();
  assertRising(await percentsSeen(page));
  assert.equal(tus.count("POST"), 1);
  assert.equal(tus.count("PATCH"), 1);

  const [item] = await rest(`course_content?course_id=eq.${course.id}&select=title,file_type,file_path,file_size`);
  assert.equal(item.file_type, "audio");
  assert.equal(item.file_size, audio.length);
  assert.match(item.file_path, new RegExp(`^${course.id}/\\d+_dialogue_au_restaurant_niveau_intermediaire_partie_1\\.mp3$`));
  const info = await objectInfo("course-content", item.file_path);
  assert.equal(info.content_type, "audio/mpeg");
  assert.equal(info.size, audio.length);
  assert.ok((await objectBytes("course-content", item.file_path)).equals(audio), "the stored file is the file sent");
  state.course = course;
});

test("a cancelled upload stores nothing, says so, and the form uploads again", async () => {
  const { page } = state.desktop;
  await openBooks(page);
  const title = `Livre annulé ${Date.now()}`;
  const pdf = largePdf(title, 9 * 1024 * 1024);
  await page.getByLabel("Titre", { exact: true }).fill(title);
  await page.getByLabel("Fichier PDF").setInputFiles({ name: "annule.pdf", mimeType: "application/pdf", buffer: pdf });
  const tus = recordResumableRequests(page);
  const hold = await holdSecondChunk(page);
  await page.getByRole("button", { name: "Téléverser le livre" }).click();
  await hold.held;
  await midUploadPercent(page);
  const terminated = page.waitForResponse((r) => r.url().includes("/storage/v1/upload/resumable/") && r.request().method() === "DELETE");
  await page.getByRole("button", { name: "Annuler le téléversement" }).click();
  await page.getByText("Téléversement annulé : le livre n'a pas été ajouté. Vous pouvez le relancer.").waitFor();
  // The partial upload is deleted on the server (TUS termination).
  assert.equal((await terminated).status(), 204);
  await hold.abort("aborted");
  await page.getByTestId("upload-progress").waitFor({ state: "detached" });
  assert.equal(await page.getByRole("button", { name: "Téléverser le livre" }).isEnabled(), true);
  assert.equal(await page.getByLabel("Titre", { exact: true }).inputValue(), title);
  assert.deepEqual(await rest(`books?title=eq.${encodeURIComponent(title)}&select=id`), []);
  const objectName = uploadMetadataOf(tus.requests.find((r) => r.method === "POST")).objectName;
  assert.equal(await objectInfo("books", objectName), null);

  // Submitting again starts over and succeeds.
  await page.getByRole("button", { name: "Téléverser le livre" }).click();
  await toast(page, "Livre téléchargé");
  tus.stop();
  assert.equal(tus.count("POST"), 2);
  const [book] = await rest(`books?title=eq.${encodeURIComponent(title)}&select=file_path`);
  assert.equal((await objectInfo("books", book.file_path)).size, pdf.length);
});

test("an upload cut by a lost connection says why, keeps the form, and resumes where it stopped", async () => {
  const { page, context } = state.desktop;
  const course = state.course;
  assert.ok(course, "the lesson test created the course");
  await page.goto(`${BASE_URL}/admin/course/${course.id}`);
  await page.getByRole("heading", { name: "Ajouter du contenu" }).waitFor();
  const pdf = largePdf("coupure", 13 * 1024 * 1024);
  await page.getByLabel("Fichier", { exact: true }).setInputFiles({ name: "fiche coupure.pdf", mimeType: "application/pdf", buffer: pdf });
  assert.equal(await page.getByLabel("Type de fichier").inputValue(), "document");
  const tus = recordResumableRequests(page);
  const hold = await holdSecondChunk(page);
  await page.getByRole("button", { name: "Ajouter le contenu" }).click();
  await hold.held;
  await midUploadPercent(page);
  // The network goes away in the middle of the second chunk: no retry can reach the server.
  await context.setOffline(true);
  await hold.abort("internetdisconnected");
  await page.getByTestId("content-upload-failure").filter({ hasText: "Échec du téléversement du fichier : la connexion au serveur a été perdue" }).waitFor();
  await page.getByTestId("upload-progress").waitFor({ state: "detached" });
  assert.equal(await page.getByRole("button", { name: "Ajouter le contenu" }).isEnabled(), true);
  assert.equal(await page.getByLabel("Titre du contenu").inputValue(), "fiche coupure");
  assert.deepEqual(await rest(`course_content?course_id=eq.${course.id}&title=eq.fiche%20coupure&select=id`), []);
  const first = uploadMetadataOf(tus.requests.find((r) => r.method === "POST"));

  // Back online, the same file: the upload resumes (HEAD for the offset, no new creation) and
  // keeps its first object name.
  await context.setOffline(false);
  const before = tus.requests.length;
  await page.getByRole("button", { name: "Ajouter le contenu" }).click();
  await toast(page, "Contenu ajouté");
  tus.stop();
  const resumed = tus.requests.slice(before);
  assert.equal(tus.count("POST"), 1, "no second creation: the upload was resumed");
  assert.equal(resumed[0].method, "HEAD", "the offset was asked for first");
  // The chunk stored before the cut is not sent again.
  assert.equal(resumed.find((r) => r.method === "PATCH").headers["upload-offset"], String(6 * 1024 * 1024));
  const [item] = await rest(`course_content?course_id=eq.${course.id}&title=eq.fiche%20coupure&select=file_path,file_size,file_type`);
  assert.equal(item.file_path, first.objectName);
  assert.equal(item.file_type, "document");
  assert.ok((await objectBytes("course-content", item.file_path)).equals(pdf), "the resumed object is the whole file, byte for byte");
  assert.equal((await objectInfo("course-content", item.file_path)).content_type, "application/pdf");
});

test("a chunk cut by a network fault is retried on its own, the panel saying so, and the upload completes", async () => {
  const { page } = state.desktop;
  const course = state.course;
  assert.ok(course, "the lesson test created the course");
  await page.goto(`${BASE_URL}/admin/course/${course.id}`);
  await page.getByRole("heading", { name: "Ajouter du contenu" }).waitFor();
  const pdf = largePdf("reprise", 10 * 1024 * 1024);
  await page.getByLabel("Fichier", { exact: true }).setInputFiles({ name: "fiche reprise.pdf", mimeType: "application/pdf", buffer: pdf });
  const tus = recordResumableRequests(page);
  const chunk = await holdSecondChunk(page);
  await page.getByRole("button", { name: "Ajouter le contenu" }).click();
  await chunk.held;
  await midUploadPercent(page);
  // The connection resets under the second chunk (still online): tus-js-client asks the offset
  // again (HEAD), held here so the panel can be read.
  const offset = await holdRequest(page, "HEAD");
  await chunk.abort("connectionreset");
  await offset.held;
  await page.getByTestId("upload-progress").getByText(/Envoi interrompu, nouvelle tentative 1 sur 3…/).waitFor();
  await offset.release();
  await toast(page, "Contenu ajouté");
  tus.stop();
  assert.equal(tus.count("POST"), 1);
  assert.equal(tus.count("HEAD"), 1);
  assert.equal(tus.count("PATCH"), 2, "the cut chunk, then the same chunk again");
  const [item] = await rest(`course_content?course_id=eq.${course.id}&title=eq.fiche%20reprise&select=file_path`);
  assert.ok((await objectBytes("course-content", item.file_path)).equals(pdf), "the stored file is whole");
});

test("a PDF over the books bucket's 50 MiB limit is refused with the server's reason and the form stays usable", async () => {
  const { page } = state.desktop;
  await openBooks(page);
  const title = `Livre trop gros ${Date.now()}`;
  // Past the 50 MB that setInputFiles takes as a buffer: a file on disk.
  const dir = await mkdtemp(join(tmpdir(), "uploads-e2e-"));
  const path = join(dir, "trop gros.pdf");
  await writeFile(path, largePdf(title, 51 * 1024 * 1024));
  try {
    await page.getByLabel("Titre", { exact: true }).fill(title);
    await page.getByLabel("Fichier PDF").setInputFiles(path);
    const tus = recordResumableRequests(page);
    await page.getByRole("button", { name: "Téléverser le livre" }).click();
    await page.getByRole("alert").filter({ hasText: "Échec du téléversement du PDF : le fichier dépasse la taille maximale autorisée." }).waitFor();
    tus.stop();
    // Refused at creation: not retried, no chunk sent after it.
    assert.equal(tus.count("POST"), 1);
    assert.equal(tus.count("PATCH"), 0);
    await page.getByTestId("upload-progress").waitFor({ state: "detached" });
    assert.equal(await page.getByRole("button", { name: "Téléverser le livre" }).isEnabled(), true);
    assert.equal(await page.getByLabel("Titre", { exact: true }).inputValue(), title);
    assert.deepEqual(await rest(`books?title=eq.${encodeURIComponent(title)}&select=id`), []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
