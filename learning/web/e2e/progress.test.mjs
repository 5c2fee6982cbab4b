// Progress is what the learner has watched (content_views) over what is unlocked to them,
// counted by the database (rpc get_course_progress) and shown alike on the course list, the
// course page and the admin's access dialog. A lesson the admin grants is unlocked, not done.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { BASE_URL, anonKey, apiSession, axeViolations, newAccount, newPage, pageAccessToken, useBrowser, screenshot } from "./support.mjs";
import { DEMO, VIEWPORTS, horizontalOverflow, signIn } from "./browser.mjs";
import { newAdmin, withToken } from "./admin-support.mjs";

const b = useBrowser();
const FREE = "Les bases de l'anglais"; // public, 3 lessons, no schedule
const TOEIC = "Préparation au TOEIC"; // private, 2 lessons
const state = {};
// Set to a folder to keep screenshots of the screens for review.

before(async () => {
  state.admin = await apiSession(DEMO.admin.email, DEMO.admin.password);
  const courses = await (await state.admin.rest("courses?select=id,title")).json();
  state.free = courses.find((c) => c.title === FREE);
  state.toeic = courses.find((c) => c.title === TOEIC);
  const lessons = async (course) => (await state.admin.rest(`course_content?course_id=eq.${course.id}&select=id,title&order=order_index`)).json();
  state.freeLessons = await lessons(state.free);
  state.toeicLessons = await lessons(state.toeic);
  state.watcher = await newAccount("progress");
  state.granted = await newAccount("granted");
  const idOf = async (email) => (await (await state.admin.rest(`profiles?email=eq.${encodeURIComponent(email)}&select=id`)).json())[0].id;
  state.grantedId = await idOf(state.granted.email);
});

after(async () => {
  await state.admin?.rest(`user_content_progress?user_id=eq.${state.grantedId}`, { method: "DELETE" });
  await state.admin?.logout();
});

async function grantLesson(lesson) {
  const res = await state.admin.rest("user_content_progress", {
    method: "POST",
    headers: { prefer: "resolution=ignore-duplicates" }, // granted again: no change
    body: JSON.stringify({ user_id: state.grantedId, course_id: state.toeic.id, content_id: lesson.id }),
  });
  assert.equal(res.status, 201, await res.text());
}

const progressText = (page, text) => page.getByTestId("progress-text").filter({ hasText: new RegExp(`^${text}$`) }).waitFor();
const lessonButton = (page, n, title, state) => page.getByRole("group", { name: "Leçons du cours" }).getByRole("button", { name: `Leçon ${n} : ${title} (${state})` });
const courseCard = (page, title) => page.getByTestId("course-card").filter({ has: page.getByRole("heading", { name: title }) });

async function shot(page, name) {
  await screenshot(page, name, { fullPage: true });
}

test("opening lessons moves the progress on the course page at once, and on the course list", async () => {
  const [first, second, third] = state.freeLessons;
  const desktop = await newPage(b.browser, VIEWPORTS.desktop);
  let page = desktop.page;
  await signIn(page, BASE_URL, state.watcher.email, state.watcher.password);

  await page.goto(`${BASE_URL}/cours`);
  await courseCard(page, FREE).getByTestId("course-progress").filter({ hasText: "0/3 leçons vues · 0 %" }).waitFor();

  await page.goto(`${BASE_URL}/course/${state.free.id}`);
  await page.getByRole("heading", { name: FREE }).waitFor();
  await progressText(page, "0/3 leçons vues · 0 %");
  await lessonButton(page, 1, first.title, "non vue").click();
  // The view is recorded and the progress follows, without a reload.
  await progressText(page, "1/3 leçons vues · 33 %");
  await lessonButton(page, 1, first.title, "terminée").waitFor();
  await lessonButton(page, 2, second.title, "non vue").click();
  await progressText(page, "2/3 leçons vues · 66 %");
  assert.equal(await page.getByTestId("course-done").count(), 0);
  assert.deepEqual(await axeViolations(page), []);
  await shot(page, "progress-course-desktop");

  // The views are rows of content_views, the learner's own.
  const api = withToken(await pageAccessToken(page), await anonKey());
  const views = await api.rest(`content_views?select=content_id`);
  assert.deepEqual(views.map((v) => v.content_id).sort(), [first.id, second.id].sort());

  // The other device reads the same progress from the server, and finishes the course.
  const mobile = await newPage(b.browser, VIEWPORTS.mobile);
  page = mobile.page;
  await signIn(page, BASE_URL, state.watcher.email, state.watcher.password);
  await page.goto(`${BASE_URL}/course/${state.free.id}`);
  await progressText(page, "2/3 leçons vues · 66 %");
  await lessonButton(page, 3, third.title, "non vue").click();
  await progressText(page, "3/3 leçons vues · 100 %");
  await page.getByTestId("course-done").filter({ hasText: "Cours terminé" }).waitFor();
  assert.equal(await horizontalOverflow(page), 0);
  assert.deepEqual(await axeViolations(page), []);
  await shot(page, "progress-course-done-mobile");

  await page.goto(`${BASE_URL}/cours`);
  const card = courseCard(page, FREE).getByTestId("course-progress");
  await card.filter({ hasText: "3/3 leçons vues · 100 %" }).filter({ hasText: "Cours terminé" }).waitFor();
  assert.equal(await horizontalOverflow(page), 0);
  assert.deepEqual(await axeViolations(page), []);
  await shot(page, "progress-list-mobile");

  await desktop.page.goto(`${BASE_URL}/cours`);
  await courseCard(desktop.page, FREE).getByTestId("course-progress").filter({ hasText: "Cours terminé" }).waitFor();
  await shot(desktop.page, "progress-list-desktop");

  // The course content page says the same, and marks the watched lessons.
  await desktop.page.goto(`${BASE_URL}/cours-detail/${state.free.id}`);
  await desktop.page.getByTestId("course-progress").filter({ hasText: "3/3 leçons vues · 100 %" }).waitFor();
  assert.equal(await desktop.page.locator("main ol > li").filter({ hasText: "Vu" }).count(), 3);
  await desktop.context.close();
  await mobile.context.close();
});

test("a lesson the admin grants is unlocked, not completed; the course is done once every lesson is watched", async () => {
  const [first, second] = state.toeicLessons;
  await grantLesson(first);
  const { context, page } = await newPage(b.browser, VIEWPORTS.desktop);
  await signIn(page, BASE_URL, state.granted.email, state.granted.password);
  await page.goto(`${BASE_URL}/course/${state.toeic.id}`);
  await page.getByRole("heading", { name: TOEIC }).waitFor();
  // Granted, never opened: unlocked but not "Terminée".
  await lessonButton(page, 1, first.title, "non vue").waitFor();
  await progressText(page, "0/1 leçon vue · 0 %");
  assert.equal(await page.getByTestId("course-done").count(), 0);

  await lessonButton(page, 1, first.title, "non vue").click();
  await progressText(page, "1/1 leçon vue · 100 %");
  await lessonButton(page, 1, first.title, "terminée").waitFor();
  // Every unlocked lesson watched, but the course has another: up to date, not finished.
  await page.getByTestId("course-up-to-date").waitFor();
  assert.equal(await page.getByTestId("course-done").count(), 0);
  assert.deepEqual(await axeViolations(page), []);

  await grantLesson(second);
  await page.reload();
  await progressText(page, "1/2 leçons vues · 50 %");
  await lessonButton(page, 2, second.title, "non vue").click();
  await progressText(page, "2/2 leçons vues · 100 %");
  await page.getByTestId("course-done").filter({ hasText: "Cours terminé" }).waitFor();
  await shot(page, "progress-granted-done-desktop");
  await context.close();
});

for (const [name, viewport] of Object.entries(VIEWPORTS)) {
  test(`the admin sees a learner's progress in the access dialog, and a revoke moves it (${name})`, async () => {
    const admin = await newAdmin();
    const { context, page } = await newPage(b.browser, viewport);
    await signIn(page, BASE_URL, admin.email, admin.password);
    // A run before this one revoked the second lesson: grant it back (it stays watched).
    await grantLesson(state.toeicLessons[1]);
    await page.goto(`${BASE_URL}/admin`);
    await page.getByLabel("Rechercher un utilisateur...").fill(state.granted.email);
    const row = page.locator(`[data-testid="user-row"][data-email="${state.granted.email}"]`);
    await row.getByRole("button", { name: /^Actions pour/ }).click();
    await page.getByRole("menuitem", { name: "Accès", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: /^Gestion d'accès pour/ });
    const toeicRow = dialog.locator(`[data-testid="access-course"][data-title="${TOEIC}"]`);
    await toeicRow.getByTestId("course-progress").filter({ hasText: "2/2 leçons vues · 100 %" }).filter({ hasText: "Cours terminé" }).waitFor();
    // Every signed-in learner has the free course unlocked: nothing watched there.
    await dialog.locator(`[data-testid="access-course"][data-title="${FREE}"]`).getByTestId("course-progress").filter({ hasText: "0/3 leçons vues · 0 %" }).waitFor();
    assert.deepEqual(await axeViolations(page), []);
    await shot(page, `progress-admin-${name}`);

    await dialog.getByRole("button", { name: `Afficher le contenu de ${TOEIC}` }).click();
    const second = state.toeicLessons[1];
    await dialog.getByRole("button", { name: `Révoquer l'accès à ${second.title}` }).click();
    await toeicRow.getByTestId("course-progress").filter({ hasText: /^1\/1 leçon vue · 100 %$/ }).waitFor();
    assert.equal(await toeicRow.getByText("Cours terminé").count(), 0);
    assert.equal(await horizontalOverflow(page), 0);
    await context.close();
  });
}
