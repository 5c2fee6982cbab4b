// A shared link to a private course: a visitor sees its public summary (what the database's
// get_course_summary returns, never its lessons) with "Se connecter" and "Créer un compte",
// which come back to the course once signed in. "Cours non trouvé" only when no such course.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { BASE_URL, anonKey, apiSession, axeViolations, newAccount, newPage, useBrowser, screenshot } from "./support.mjs";
import { DEMO, VIEWPORTS, horizontalOverflow } from "./browser.mjs";

const b = useBrowser();
const TOEIC = "Préparation au TOEIC"; // private, 2 lessons
const state = {};

before(async () => {
  const admin = await apiSession(DEMO.admin.email, DEMO.admin.password);
  const [course] = await (await admin.rest(`courses?title=eq.${encodeURIComponent(TOEIC)}&select=id,title,description`)).json();
  state.course = course;
  await admin.logout();
});

for (const [name, viewport] of Object.entries(VIEWPORTS)) {
  test(`a visitor following a private course's link sees its summary and the way in (${name})`, async () => {
    const { context, page } = await newPage(b.browser, viewport);
    const path = `/course/${state.course.id}`;
    await page.goto(`${BASE_URL}${path}`);
    await page.getByRole("heading", { name: TOEIC, level: 1 }).waitFor();
    await page.getByText(state.course.description).waitFor();
    await page.getByText("2 leçons").waitFor();
    assert.equal(await page.getByText("Cours non trouvé").count(), 0);
    const panel = page.getByTestId("course-sign-in");
    const signInLink = panel.getByRole("link", { name: "Se connecter" });
    const signUpLink = panel.getByRole("link", { name: "Créer un compte" });
    assert.equal(await signInLink.getAttribute("href"), `/connexion?next=${encodeURIComponent(path)}`);
    assert.equal(await signUpLink.getAttribute("href"), `/inscription?next=${encodeURIComponent(path)}`);
    // Nothing of the lessons: no carousel, no lesson title.
    assert.equal(await page.getByRole("group", { name: "Leçons du cours" }).count(), 0);
    assert.equal(await page.getByText("Structure de l'examen").count(), 0);
    assert.equal(await horizontalOverflow(page), 0);
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, `visitor-course-${name}`, { fullPage: true });

    // The course content page says the same.
    await page.goto(`${BASE_URL}/cours-detail/${state.course.id}`);
    await page.getByRole("heading", { name: TOEIC, level: 1 }).waitFor();
    await page.getByRole("link", { name: "Se connecter" }).waitFor();
    assert.equal(await page.getByRole("link", { name: "Créer un compte" }).getAttribute("href"), `/inscription?next=${encodeURIComponent(`/cours-detail/${state.course.id}`)}`);
    assert.equal(await horizontalOverflow(page), 0);
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, `visitor-course-detail-${name}`, { fullPage: true });

    // Only a course that does not exist is "not found".
    for (const missing of ["00000000-0000-4000-8000-00000000dead", "pas-un-identifiant"]) {
      await page.goto(`${BASE_URL}/course/${missing}`);
      await page.getByRole("alert").filter({ hasText: "Cours non trouvé" }).waitFor();
    }
    await context.close();
  });
}

test("what a visitor may read of a private course is decided by the database", async () => {
  const headers = { apikey: await anonKey(), "content-type": "application/json" };
  const id = state.course.id;
  // The row and the lessons stay hidden...
  assert.deepEqual(await (await fetch(`${BASE_URL}/rest/v1/courses?id=eq.${id}`, { headers })).json(), []);
  assert.deepEqual(await (await fetch(`${BASE_URL}/rest/v1/course_content?course_id=eq.${id}`, { headers })).json(), []);
  // ...the summary holds only the summary columns.
  const res = await fetch(`${BASE_URL}/rest/v1/rpc/get_course_summary`, { method: "POST", headers, body: JSON.stringify({ course_id: id }) });
  const [summary] = await res.json();
  assert.deepEqual(Object.keys(summary).sort(), ["cover_url", "created_at", "description", "id", "lesson_count", "title", "visibility"]);
  assert.equal(summary.lesson_count, 2);
});

test("signing in from a private course's summary comes back to the course", async () => {
  const account = await newAccount("retour");
  const { context, page } = await newPage(b.browser, VIEWPORTS.desktop);
  await page.goto(`${BASE_URL}/course/${state.course.id}`);
  await page.getByTestId("course-sign-in").getByRole("link", { name: "Se connecter" }).click();
  await page.waitForURL(/\/connexion\?next=/);
  await page.getByLabel("Email").fill(account.email);
  await page.getByLabel("Mot de passe", { exact: true }).fill(account.password);
  await page.getByRole("button", { name: "Se connecter" }).click();
  // Helper B's part: login honours `next` (same-origin paths only).
  await page.waitForURL(`${BASE_URL}/course/${state.course.id}`, { timeout: 20_000 });
  await page.getByRole("heading", { name: TOEIC, level: 1 }).waitFor();
  await page.getByText("Ce cours est payant").waitFor();
  await context.close();
});
