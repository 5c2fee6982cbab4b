// The unlock schedule in the browser: 'Anglais des affaires' opens 1 lesson every 2 days. A
// learner granted the course now sees lesson 1 open and the others locked with the day they
// open; a locked lesson's address is refused by the page, by REST and by storage.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { format } from "date-fns";
import { fr } from "date-fns/locale";
import { BASE_URL, anonKey, apiSession, axeViolations, newAccount, newPage, pageAccessToken, useBrowser, screenshot } from "./support.mjs";
import { DEMO, VIEWPORTS, horizontalOverflow, signIn } from "./browser.mjs";

const b = useBrowser();
const COURSE = "Anglais des affaires";
const DAY = 86_400_000;
const state = {};
// Set to a folder to keep screenshots of the screens for review.

before(async () => {
  state.admin = await apiSession(DEMO.admin.email, DEMO.admin.password);
  state.learner = await newAccount("unlock");
  const [course] = await (await state.admin.rest(`courses?title=eq.${encodeURIComponent(COURSE)}&select=id`)).json();
  state.course = course;
  state.lessons = await (await state.admin.rest(`course_content?course_id=eq.${course.id}&select=id,title,file_path&order=order_index`)).json();
  const [{ id: learnerId }] = await (await state.admin.rest(`profiles?email=eq.${encodeURIComponent(state.learner.email)}&select=id`)).json();
  state.learnerId = learnerId;
  const grant = await state.admin.rest("course_access", {
    method: "POST",
    headers: { prefer: "return=representation" },
    body: JSON.stringify({ user_id: learnerId, course_id: course.id, granted_by: state.admin.user.id }),
  });
  assert.equal(grant.status, 201);
  const [access] = await grant.json();
  // The schedule: lesson n opens 2 x (n - 1) days after access started.
  state.opensAt = (position) => new Date(new Date(access.created_at).getTime() + 2 * (position - 1) * DAY);
});

after(async () => {
  await state.admin?.rest(`course_access?user_id=eq.${state.learnerId}&course_id=eq.${state.course?.id}`, { method: "DELETE" });
  await state.admin?.logout();
});

const longDate = (date) => format(date, "d MMMM 'à' HH:mm", { locale: fr });

for (const [name, viewport] of Object.entries(VIEWPORTS)) {
  test(`the carousel shows the locked lessons with the day they open; their address is refused (${name})`, async () => {
    const { context, page } = await newPage(b.browser, viewport);
    await signIn(page, BASE_URL, state.learner.email, state.learner.password);
    const [first, second, third] = state.lessons;

    await page.goto(`${BASE_URL}/course/${state.course.id}`);
    await page.getByRole("heading", { name: COURSE }).waitFor();
    const carousel = page.getByRole("group", { name: "Leçons du cours" });
    await carousel.getByRole("button", { name: new RegExp(`^Leçon 1 : ${first.title} \\((non vue|terminée)\\)$`) }).waitFor();  // viewed by the other viewport
    const lockedButtons = carousel.locator('button[data-locked="true"]');
    assert.equal(await lockedButtons.count(), state.lessons.length - 1);
    const secondButton = carousel.getByRole("button", { name: `Leçon 2 : ${second.title} (verrouillée, disponible le ${longDate(state.opensAt(2))})` });
    await secondButton.waitFor();
    assert.match(await secondButton.innerText(), new RegExp(`2\\s+${format(state.opensAt(2), "d MMM", { locale: fr }).replace(".", "\\.")}`));
    // Progress counts the unlocked lesson only (watched by the other viewport, or not yet).
    await page.getByTestId("progress-text").filter({ hasText: /^[01]\/1 leçon vue · (0|100) %$/ }).waitFor();
    await page.getByTestId("next-unlock").filter({ hasText: `Prochaine leçon : « ${second.title} », disponible le ${longDate(state.opensAt(2))}.` }).waitFor();
    await page.getByRole("listitem").filter({ hasText: /^\s*Verrouillée\s*$/ }).waitFor();  // the legend
    assert.equal(await horizontalOverflow(page), 0);

    // Selecting a locked lesson says when it opens, and offers nothing to open.
    await secondButton.click();
    const panel = page.getByTestId("locked-lesson");
    await panel.getByText(`Disponible le ${longDate(state.opensAt(2))}`).waitFor();
    assert.equal(await page.getByRole("link", { name: "Ouvrir la leçon" }).count(), 0);
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, `unlock-course-${name}`, { fullPage: true });

    // The course content page lists them locked too.
    await page.goto(`${BASE_URL}/cours-detail/${state.course.id}`);
    const rows = page.getByTestId("locked-lesson-row");
    await rows.first().waitFor();
    assert.equal(await rows.count(), state.lessons.length - 1);
    await rows.filter({ hasText: third.title }).getByText(`Disponible le ${longDate(state.opensAt(3))}`).waitFor();
    assert.equal(await horizontalOverflow(page), 0);

    // The open lesson's viewer: its outline shows the others locked.
    await page.goto(`${BASE_URL}/video/${first.id}`);
    await page.getByRole("heading", { name: first.title, level: 1 }).waitFor();
    await page.getByText(`Sommaire · ${state.lessons.length} leçons`).waitFor();
    assert.equal(await page.getByTestId("locked-lesson-entry").count(), state.lessons.length - 1);
    assert.equal(await page.getByRole("navigation", { name: "Sommaire du cours" }).getByRole("link").count(), 1);
    await page.getByRole("button", { name: "Suivant" }).and(page.locator("[disabled]")).waitFor();

    // A locked lesson's address: the access message in French, with the day it opens.
    await page.goto(`${BASE_URL}/video/${second.id}`);
    const refusal = page.getByRole("alert").filter({ hasText: "Vous n'avez pas accès à ce contenu" });
    await refusal.waitFor();
    await refusal.getByText(`Cette leçon n'est pas encore débloquée. Elle sera disponible le ${longDate(state.opensAt(2))}.`).waitFor();
    assert.equal(await page.getByText("Content not found").count(), 0);
    assert.equal(await page.locator("iframe").count(), 0);
    assert.equal(await horizontalOverflow(page), 0);
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, `unlock-video-refused-${name}`, { fullPage: true });
    await page.getByRole("link", { name: "Retour au cours" }).click();
    await page.waitForURL(`**/course/${state.course.id}`);

    // A lesson that does not exist is "not found", in French.
    await page.goto(`${BASE_URL}/video/00000000-0000-4000-8000-00000000dead`);
    await page.getByRole("alert").filter({ hasText: "Contenu introuvable" }).waitFor();

    // The same learner's token, straight to the API: the locked lesson and its file are refused.
    const headers = { apikey: await anonKey(), authorization: `Bearer ${await pageAccessToken(page)}` };
    const listed = await (await fetch(`${BASE_URL}/rest/v1/course_content?course_id=eq.${state.course.id}&select=id`, { headers })).json();
    assert.deepEqual(listed.map((l) => l.id), [first.id]);
    assert.deepEqual(await (await fetch(`${BASE_URL}/rest/v1/course_content?id=eq.${second.id}`, { headers })).json(), []);
    const lockedFile = state.lessons.find((l, i) => i > 0 && l.file_path).file_path;
    const download = await fetch(`${BASE_URL}/storage/v1/object/authenticated/course-content/${lockedFile}`, { headers });
    assert.equal(download.status, 400);
    assert.equal((await download.json()).statusCode, "404");
    const sign = await fetch(`${BASE_URL}/storage/v1/object/sign/course-content/${lockedFile}`, {
      method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ expiresIn: 60 }),
    });
    assert.equal(sign.status, 400);
    await fetch(`${BASE_URL}/auth/v1/logout?scope=local`, { method: "POST", headers });
    await context.close();
  });
}
