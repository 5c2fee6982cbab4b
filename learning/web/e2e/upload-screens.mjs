// Screenshots of the admin's upload forms mid-upload (a chunk held back) and after, for
// scripts/screenshots.mjs. What they add (a book, a lesson) is deleted afterwards.
import { holdSecondChunk, largePdf, mediaBytes } from "./upload-support.mjs";

async function midUpload(page) {
  await page.waitForFunction(() => {
    const p = Number(document.querySelector('[data-testid="upload-progress"]')?.getAttribute("data-percent"));
    return p > 0 && p < 100;
  });
}

/** The page's token and API key, for the clean-up calls. */
async function apiHeaders(page, baseUrl) {
  const config = await (await fetch(`${baseUrl}/config.js`)).text();
  const apikey = config.match(/"supabaseAnonKey":\s*"([^"]+)"/)[1];
  const token = await page.evaluate(() => {
    const key = Object.keys(localStorage).find((k) => /^sb-.*-auth-token$/.test(k));
    return JSON.parse(localStorage.getItem(key)).access_token;
  });
  return { apikey, authorization: `Bearer ${token}`, "content-type": "application/json" };
}

async function removeRow(baseUrl, headers, table, filter, bucket) {
  const res = await fetch(`${baseUrl}/rest/v1/${table}?${filter}`, { method: "DELETE", headers: { ...headers, prefer: "return=representation" } });
  const rows = res.ok ? await res.json() : [];
  const paths = rows.map((r) => r.file_path).filter(Boolean);
  if (paths.length) await fetch(`${baseUrl}/storage/v1/object/${bucket}`, { method: "DELETE", headers, body: JSON.stringify({ prefixes: paths }) });
}

/**
 * `shot(name)` takes the screenshot (and its checks). Book form: 47b mid-upload, 47c after;
 * lesson form of course `courseId`: 50b mid-upload, 50c after.
 */
export async function uploadScreens(page, baseUrl, courseId, shot) {
  const stamp = Date.now();
  const bookTitle = `Grammaire anglaise complète ${stamp}`;
  await page.goto(`${baseUrl}/admin`);
  await page.getByRole("tab", { name: "Livres" }).click();
  await page.getByLabel("Titre", { exact: true }).fill(bookTitle);
  await page.getByLabel("Description").fill("Toutes les règles, avec exercices corrigés.");
  await page.getByLabel("Nombre de pages").fill("412");
  await page.getByLabel("Fichier PDF").setInputFiles({ name: "grammaire anglaise complete.pdf", mimeType: "application/pdf", buffer: largePdf(bookTitle, 14 * 1024 * 1024) });
  let hold = await holdSecondChunk(page);
  await page.getByRole("button", { name: "Téléverser le livre" }).click();
  await hold.held;
  await midUpload(page);
  await shot("47b-admin-livre-televersement");
  await hold.release();
  await page.locator(`[data-testid="admin-book"][data-title="${bookTitle}"]`).waitFor();
  await page.getByTestId("upload-progress").waitFor({ state: "detached" });
  await shot("47c-admin-livre-televerse");

  const lessonTitle = `Dialogue au restaurant ${stamp}`;
  await page.goto(`${baseUrl}/admin/course/${courseId}`);
  await page.getByRole("heading", { name: "Ajouter du contenu" }).waitFor();
  await page.getByLabel("Fichier", { exact: true }).setInputFiles({ name: "dialogue restaurant.mp3", mimeType: "audio/mpeg", buffer: mediaBytes(9 * 1024 * 1024) });
  await page.getByLabel("Titre du contenu").fill(lessonTitle);
  await page.getByLabel("Type de fichier").selectOption("audio");
  hold = await holdSecondChunk(page);
  await page.getByRole("button", { name: "Ajouter le contenu" }).click();
  await hold.held;
  await midUpload(page);
  await shot("50b-admin-contenu-televersement");
  await hold.release();
  await page.locator(`[data-testid="content-item"][data-title="${lessonTitle}"]`).waitFor();
  await page.getByTestId("upload-progress").waitFor({ state: "detached" });
  await shot("50c-admin-contenu-televerse");

  const headers = await apiHeaders(page, baseUrl);
  await removeRow(baseUrl, headers, "books", `title=eq.${encodeURIComponent(bookTitle)}`, "books");
  await removeRow(baseUrl, headers, "course_content", `title=eq.${encodeURIComponent(lessonTitle)}`, "course-content");
}
