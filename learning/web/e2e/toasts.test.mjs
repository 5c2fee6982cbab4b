// Toasts hide no action: after an action that toasts, the controls people press next (the
// access dialog's "Accorder" and "Actualiser", a lesson page's buttons down to the last
// lessons, the shelf's "Télécharger") are not under the toast, at 375 and 1280 px.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BASE_URL, axeViolations, newPage, screenshot, useBrowser } from "./support.mjs";
import { VIEWPORTS, signIn } from "./browser.mjs";
import { PASSWORD, newAdmin, signUp } from "./admin-support.mjs";

const b = useBrowser();

/** Waits until a toast with `text` is shown and has stopped moving. */
async function toastShown(page, text) {
  const toast = page.locator('[data-sonner-toast][data-mounted="true"]').filter({ hasText: text }).last();
  try {
    await toast.waitFor();
  } catch (error) {
    const shown = await page.locator("[data-sonner-toast]").allInnerTexts();
    throw new Error(`no toast "${text}"; shown: ${JSON.stringify(shown)}`, { cause: error });
  }
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== "running"));
  return toast;
}

/** Boxes of the toasts on screen (a toast takes no pointer, so hit-testing cannot see it). */
const TOAST_BOXES = `[...document.querySelectorAll("[data-sonner-toast]")]
  .filter((t) => t.dataset.visible !== "false" && Number(getComputedStyle(t).opacity) > 0.1)
  .map((t) => t.getBoundingClientRect())`;

/**
 * The controls of the page (or of the open dialog, the page being inert behind it) that are
 * seen (their centre is theirs, not the sticky header's) and whose centre lies in a toast.
 */
function coveredControls(page) {
  return page.evaluate((boxesSource) => {
    const toasts = eval(boxesSource);
    const dialogs = [...document.querySelectorAll('[role="dialog"], [role="alertdialog"]')];
    const scope = dialogs.at(-1) ?? document.querySelector("main");
    const covered = [];
    for (const el of scope.querySelectorAll('button, a[href], input, textarea, select, [role="tab"], [role="checkbox"]')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      const [x, y] = [r.left + r.width / 2, r.top + r.height / 2];
      if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight || !el.contains(document.elementFromPoint(x, y))) continue;
      if (toasts.some((t) => x >= t.left && x <= t.right && y >= t.top && y <= t.bottom)) covered.push((el.getAttribute("aria-label") || el.textContent || el.tagName).trim().slice(0, 60));
    }
    return covered;
  }, TOAST_BOXES);
}

/** No toast lies over the centre of the control. */
async function uncovered(locator) {
  await locator.scrollIntoViewIfNeeded();
  const toasts = await locator.page().evaluate((boxesSource) => eval(boxesSource).map((t) => t.toJSON()), TOAST_BOXES);
  const r = await locator.boundingBox();
  const [x, y] = [r.x + r.width / 2, r.y + r.height / 2];
  return !toasts.some((t) => x >= t.left && x <= t.right && y >= t.top && y <= t.bottom);
}

for (const [label, viewport] of Object.entries(VIEWPORTS)) {
  test(`${label}: the access dialog's toast leaves "Accorder", "Actualiser" and the other rows free`, async () => {
    const admin = await newAdmin();
    const learner = await signUp("toast-learner", { full_name: `Élève Toast ${label}` });
    const { context, page } = await newPage(b.browser, viewport);
    await signIn(page, BASE_URL, admin.email, PASSWORD);
    await page.goto(`${BASE_URL}/admin`);
    await page.getByLabel("Rechercher un utilisateur...").fill(learner.email);
    const row = page.locator(`[data-testid="user-row"][data-email="${learner.email}"]`);
    await row.getByRole("button", { name: /^Actions pour/ }).click();
    await page.getByRole("menuitem", { name: "Accès", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: `Gestion d'accès pour Élève Toast ${label}` });
    const courseRows = dialog.getByTestId("access-course");
    await courseRows.first().waitFor();

    // Every course unfolded: the dialog is full and its lessons' buttons reach its bottom edge.
    const unfold = dialog.getByRole("button", { name: /^Afficher le contenu de/ });
    for (let left = await unfold.count(); left > 0; left--) {
      await unfold.first().click();
      await page.waitForLoadState("networkidle");
    }
    const grants = dialog.getByRole("button", { name: /^Accorder l'accès à/ });
    await grants.first().waitFor();
    // The last lesson, scrolled to the bottom of the dialog (where a bottom toast lands), granted.
    const last = grants.last();
    await last.evaluate((el) => el.scrollIntoView({ block: "end" }));
    const name = await last.getAttribute("aria-label");
    await last.click();
    await toastShown(page, /accordé/);
    assert.deepEqual(await coveredControls(page), [], "controls of the access dialog under the toast");
    assert.ok(await uncovered(dialog.getByRole("button", { name: "Actualiser" })), "Actualiser is covered");
    const revoke = dialog.getByRole("button", { name: name.replace("Accorder l'accès à", "Révoquer l'accès à") });
    assert.ok(await uncovered(revoke), "the lesson's own button is covered");
    await courseRows.last().getByRole("button", { name: /^(Accorder|Révoquer)$/ }).click();
    await toastShown(page, /accordé/);
    assert.deepEqual(await coveredControls(page), [], "controls of the access dialog under the second toast");
    for (const button of await dialog.getByRole("button", { name: /^(Accorder|Révoquer)$/ }).all()) assert.ok(await uncovered(button), `${await button.innerText()} is covered`);
    await screenshot(page, `toast-access-${label}`);
    assert.deepEqual(await axeViolations(page), []);
    await context.close();
  });

  test(`${label}: a lesson's toast leaves its buttons free, down to the last lessons`, async () => {
    const learner = await signUp("toast-lesson", { full_name: "Élève Leçon" });
    const { context, page } = await newPage(b.browser, viewport);
    await signIn(page, BASE_URL, learner.email, PASSWORD);
    await page.goto(`${BASE_URL}/cours`);
    await page.getByTestId("course-card").filter({ hasText: "Les bases de l'anglais" }).getByRole("link", { name: /Accéder au cours/ }).click();
    await page.getByRole("button", { name: /^Leçon 1 :/ }).click();
    await page.getByRole("link", { name: "Ouvrir la leçon" }).click();
    // The lesson settles first (its view is recorded, its comments read), then the comment.
    await page.getByTestId("comments-list").waitFor();
    await page.waitForLoadState("networkidle");
    await page.getByLabel("Votre commentaire").fill(`Toast ${label} ${Date.now()}`);
    const publish = page.getByRole("button", { name: "Publier" });
    await publish.click();
    // Its wording is french.test.mjs's concern: here, where it lies.
    await toastShown(page, /Commentaire publié|Comment posted/);
    assert.deepEqual(await coveredControls(page), [], "controls of the lesson page under the toast");
    assert.ok(await uncovered(publish), "Publier is covered");
    // The end of the page while the toast is still up: the course's last lessons.
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const lessons = page.getByRole("navigation", { name: "Sommaire du cours" }).getByRole("link");
    const count = await lessons.count();
    for (const lesson of (await lessons.all()).slice(Math.max(0, count - 2))) assert.ok(await uncovered(lesson), `${await lesson.innerText()} is covered`);
    assert.deepEqual(await coveredControls(page), [], "controls at the end of the lesson page under the toast");
    await screenshot(page, `toast-lesson-${label}`);
    await context.close();
  });

  test(`${label}: the shelf's download toast leaves the books' buttons free`, async () => {
    // An admin may download every book (the demo learner's two devices are kept for other suites).
    const admin = await newAdmin();
    const { context, page } = await newPage(b.browser, viewport);
    await signIn(page, BASE_URL, admin.email, PASSWORD);
    await page.goto(`${BASE_URL}/livres`);
    const card = page.locator('[data-testid="book-card"][data-state="downloadable"]').first();
    const download = card.getByRole("button", { name: /^Télécharger/ });
    await download.click();
    await toastShown(page, "Téléchargement");
    assert.deepEqual(await coveredControls(page), [], "controls of the shelf under the toast");
    assert.ok(await uncovered(download), "Télécharger is covered");
    await context.close();
  });
}
