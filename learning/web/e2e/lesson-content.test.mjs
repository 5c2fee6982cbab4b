// Lesson content: what "Ajouter du contenu" does with a video file and with a link of the
// video site, what a learner then sees, and a document lesson's one download button.
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { after, before, test } from "node:test";
import { BASE_URL, anonKey, axeViolations, newPage, pageAccessToken } from "./support.mjs";
import { VIEWPORTS, launch, signIn } from "./browser.mjs";
import { newAdmin, pngBytes, signUp, withToken } from "./admin-support.mjs";

const b = {};
const state = {};
// Screenshots of the changed screens, when asked for (E2E_SHOTS_DIR=/tmp/shots-C).
const SHOTS = process.env.E2E_SHOTS_DIR;

before(async () => {
  b.browser = await launch();
  state.adminAccount = await newAdmin();
  state.admin = await newPage(b.browser);
  await signIn(state.admin.page, BASE_URL, state.adminAccount.email, state.adminAccount.password);
  state.key = await anonKey();
  state.token = await pageAccessToken(state.admin.page);
  state.api = withToken(state.token, state.key);
  // A public course of the suite's own: any signed-in learner opens its lessons.
  const res = await fetch(`${BASE_URL}/rest/v1/courses`, {
    method: "POST",
    headers: { apikey: state.key, authorization: `Bearer ${state.token}`, "content-type": "application/json", prefer: "return=representation" },
    body: JSON.stringify({ title: `Vidéos intégrées ${Date.now()}`, description: "Cours de test", visibility: "public" }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  [state.course] = await res.json();
  state.learnerAccount = await signUp("lecon-e2e", { full_name: "Élève Leçons" });
});
after(async () => {
  await state.admin?.context.close();
  await b.browser?.close();
});

async function shoot(page, name) {
  if (!SHOTS) return;
  await mkdir(SHOTS, { recursive: true });
  for (const viewport of Object.values(VIEWPORTS)) {
    await page.setViewportSize(viewport);
    await page.waitForTimeout(150);
    await page.screenshot({ path: `${SHOTS}/${name}-${viewport.width}.png`, fullPage: true });
  }
  await page.setViewportSize(VIEWPORTS.desktop);
}

/** A stand-in for the video site's player: the test machine has no way out to the internet. */
async function fakeYouTubePlayer(page) {
  await page.route(/^https:\/\/www\.youtube\.com\/embed\//, (route) =>
    route.fulfill({
      contentType: "text/html; charset=utf-8",
      body: `<!doctype html><title>Lecteur</title><body style="margin:0;display:grid;place-items:center;height:100vh;background:#111;color:#fff;font:16px sans-serif"><p id="player">▶ Lecteur YouTube ${new URL(route.request().url()).pathname}</p></body>`,
    }),
  );
}

test("a video file picked in 'Ajouter du contenu' is refused in French, never silently dropped", async () => {
  const { page } = state.admin;
  await page.goto(`${BASE_URL}/admin/course/${state.course.id}`);
  const file = page.getByLabel("Fichier", { exact: true });
  await file.setInputFiles({ name: "presentation cours.mp4", mimeType: "video/mp4", buffer: Buffer.alloc(2048, 1) });
  // The form stays on the file, says why the video is refused and where a video goes.
  await page.getByText("Les fichiers vidéo ne sont pas acceptés").waitFor();
  assert.ok(await page.getByLabel("Téléverser un fichier").isChecked(), "the form stayed in file mode");
  await page.locator('[data-slot="file-input"]').getByText("Aucun fichier", { exact: true }).waitFor();
  assert.equal(await page.getByLabel("Type de fichier").inputValue(), "");
  assert.deepEqual(await axeViolations(page), []);
  await shoot(page, "content-form-video-file-refused");

  // Its button leads to the embed mode, where the video's link goes.
  await page.getByRole("button", { name: "Ajouter une vidéo intégrée" }).click();
  assert.ok(await page.getByLabel("Vidéo intégrée (embed)").isChecked());
  assert.equal(await page.getByLabel("Type de fichier").inputValue(), "video");

  // A picture after it is taken as usual, and the message goes.
  await page.getByLabel("Téléverser un fichier").check();
  await file.setInputFiles({ name: "schema.png", mimeType: "image/png", buffer: await pngBytes(page, 20, 20) });
  assert.equal(await page.getByLabel("Type de fichier").inputValue(), "image");
  assert.equal(await page.getByText("Les fichiers vidéo ne sont pas acceptés").count(), 0);

  // The lessons bucket refuses video files too, whoever sends them.
  const put = await fetch(`${BASE_URL}/storage/v1/object/course-content/${state.course.id}/1_direct.mp4`, {
    method: "POST",
    headers: { apikey: state.key, authorization: `Bearer ${state.token}`, "content-type": "video/mp4" },
    body: Buffer.alloc(1024, 1),
  });
  assert.ok(put.status >= 400 && put.status < 500, `a video file is refused by the bucket (got ${put.status})`);
});

test("a YouTube watch link is converted to an embed link and plays embedded for a learner", async () => {
  const { page } = state.admin;
  await page.goto(`${BASE_URL}/admin/course/${state.course.id}`);
  await page.getByLabel("Vidéo intégrée (embed)").check();
  const embed = page.getByLabel(/URL ou code embed/);
  await embed.fill("https://www.youtube.com/watch?v=M7lc1UVf-VE&t=42s");
  await shoot(page, "content-form-embed");

  // Another host stays refused.
  await page.getByLabel("Titre du contenu").fill("Vidéo d'ailleurs");
  await embed.fill("https://example.com/watch?v=M7lc1UVf-VE");
  await page.getByRole("button", { name: "Ajouter le contenu" }).click();
  await page.locator("#content-embed-error").waitFor();
  assert.match(await page.locator("#content-embed-error").innerText(), /^Veuillez entrer une URL ou un code embed/);

  for (const [title, link] of [
    ["Small talk en vidéo", "https://www.youtube.com/watch?v=M7lc1UVf-VE&t=42s"],
    ["Les nombres en vidéo", "https://youtu.be/dQw4w9WgXcQ"],
  ]) {
    await page.getByLabel("Titre du contenu").fill(title);
    await embed.fill(link);
    await page.getByRole("button", { name: "Ajouter le contenu" }).click();
    await page.locator(`[data-testid="content-item"][data-title="${title}"]`).waitFor();
  }
  const rows = await state.api.rest(`course_content?course_id=eq.${state.course.id}&select=id,title,file_path,video_embed_url&order=order_index`);
  assert.deepEqual(
    rows.map((r) => [r.title, r.file_path, r.video_embed_url]),
    [
      ["Small talk en vidéo", null, "https://www.youtube.com/embed/M7lc1UVf-VE?start=42"],
      ["Les nombres en vidéo", null, "https://www.youtube.com/embed/dQw4w9WgXcQ"],
    ],
  );

  // The learner's viewer frames the embed link, and the player answers inside the page.
  const learner = await newPage(b.browser);
  try {
    await fakeYouTubePlayer(learner.page);
    await signIn(learner.page, BASE_URL, state.learnerAccount.email, state.learnerAccount.password);
    await learner.page.goto(`${BASE_URL}/video/${rows[0].id}`);
    await learner.page.getByRole("heading", { name: "Small talk en vidéo", level: 1 }).waitFor();
    const frame = learner.page.locator("iframe");
    assert.equal(await frame.getAttribute("src"), "https://www.youtube.com/embed/M7lc1UVf-VE?start=42");
    await learner.page.frameLocator("iframe").locator("#player").filter({ hasText: "/embed/M7lc1UVf-VE" }).waitFor();
    assert.equal(await learner.page.getByText("Vidéo indisponible").count(), 0);
    // 16:9, as wide as the lesson column.
    const box = await frame.boundingBox();
    assert.ok(Math.abs(box.width / box.height - 16 / 9) < 0.02, `16:9 frame, got ${box.width}x${box.height}`);
    assert.deepEqual(await axeViolations(learner.page), []);
    await shoot(learner.page, "lesson-youtube");
  } finally {
    await learner.context.close();
  }
});

test("a PDF lesson shows one 'Télécharger' button, which saves the file", async () => {
  const learner = await newPage(b.browser);
  try {
    await signIn(learner.page, BASE_URL, state.learnerAccount.email, state.learnerAccount.password);
    const api = withToken(await pageAccessToken(learner.page), state.key);
    const [lesson] = await api.rest(`course_content?title=eq.${encodeURIComponent("Fiche : les nombres")}&select=id,file_type`);
    assert.equal(lesson.file_type, "pdf");
    await learner.page.goto(`${BASE_URL}/video/${lesson.id}`);
    await learner.page.getByRole("heading", { name: "Fiche : les nombres", level: 1 }).waitFor();
    const buttons = learner.page.getByRole("button", { name: "Télécharger" });
    await buttons.first().waitFor();
    assert.equal(await buttons.count(), 1);
    await shoot(learner.page, "lesson-pdf");
    const [file] = await Promise.all([learner.page.waitForEvent("download"), buttons.click()]);
    assert.ok(await file.path(), "the PDF was saved");
    assert.deepEqual(await axeViolations(learner.page), []);
  } finally {
    await learner.context.close();
  }
});
