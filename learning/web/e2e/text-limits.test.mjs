// The database bounds every free text (migrations/sql/0010_text_bounds.sql): the forms say the
// bound while typing and send nothing over it; a write the database still refuses (its 400 with
// code 23514) shows the same French message, never the raw error. The over-long request is made
// by rewriting the form's own request on its way out, so the real server answers it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BASE_URL, apiSession, axeViolations, newPage, pageAccessToken, anonKey, useBrowser } from "./support.mjs";
import { signIn } from "./browser.mjs";
import { PASSWORD, signUp } from "./admin-support.mjs";

const b = useBrowser();

// French number formatting puts a (narrow) no-break space in "2 000": \s matches it.
// While typing, the message adds the length typed: "(2 001 actuellement)".
const COMMENT_LIMIT = /Le commentaire ne doit pas dépasser 2\s000 caractères/;
const REPLY_LIMIT = /La réponse ne doit pas dépasser 2\s000 caractères/;
const MESSAGE_LIMIT = /Le message ne doit pas dépasser 4\s000 caractères/;
const NAME_LIMIT = /Le nom ne doit pas dépasser 100 caractères/;

/** Rewrites the next request of `method` to `table` with `change(body)` (once). */
async function rewriteNext(page, table, method, change) {
  let done = false;
  await page.route(`**/rest/v1/${table}*`, async (route) => {
    const request = route.request();
    if (done || request.method() !== method) return route.fallback();
    done = true;
    await route.continue({ postData: JSON.stringify(change(JSON.parse(request.postData()))) });
  });
}

/** Rewrites the next POST to `table` so that its `content` is `length` characters long. */
function lengthenNextInsert(page, table, length) {
  const lengthen = (row) => ({ ...row, content: "x".repeat(length) });
  return rewriteNext(page, table, "POST", (body) => (Array.isArray(body) ? body.map(lengthen) : lengthen(body)));
}

/** The refused insert's answer: PostgREST's 400 with the check violation. */
function refusal(page, table) {
  return page.waitForResponse((r) => r.url().includes(`/rest/v1/${table}`) && r.request().method() === "POST");
}

async function toast(page, text) {
  await page.locator("[data-sonner-toast]").filter({ hasText: text }).first().waitFor();
}

async function publicLesson(session) {
  const res = await session.rest("courses?visibility=eq.public&select=id,course_content(id)&order=created_at");
  const courses = await res.json();
  const lesson = courses.flatMap((c) => c.course_content)[0];
  assert.ok(lesson, "the seed has a public lesson");
  return lesson.id;
}

test("a learner is told the bound of a comment and a reply before sending, and a refused one says it in French", async () => {
  const account = await signUp("bornes", { full_name: "Léa Bornes" });
  const { context, page } = await newPage(b.browser);
  await signIn(page, BASE_URL, account.email, account.password);
  const api = await apiSession(account.email, PASSWORD);
  const lessonId = await publicLesson(api);
  await page.goto(`${BASE_URL}/video/${lessonId}`);

  const box = page.getByLabel("Votre commentaire");
  const publish = page.getByRole("button", { name: "Publier" });
  await box.fill("é".repeat(2001));
  await page.getByText(COMMENT_LIMIT).filter({ hasText: /\(2\s001 actuellement\)/ }).waitFor();
  assert.equal(await publish.isDisabled(), true, "nothing over the bound is sent");
  assert.equal(await box.getAttribute("aria-invalid"), "true");
  assert.deepEqual(await axeViolations(page), []);
  await box.fill("é".repeat(2000)); // at the bound: accepted
  assert.equal(await page.getByText(COMMENT_LIMIT).count(), 0);
  assert.equal(await publish.isDisabled(), false);

  // The database's own refusal, shown in French.
  const comment = `Question ${Date.now()}`;
  await box.fill(comment);
  await lengthenNextInsert(page, "content_comments", 2001);
  const [answer] = await Promise.all([refusal(page, "content_comments"), publish.click()]);
  assert.equal(answer.status(), 400);
  assert.equal((await answer.json()).code, "23514");
  await toast(page, COMMENT_LIMIT);
  assert.equal(await page.locator("[data-sonner-toast]").filter({ hasText: /violates|check constraint|Failed/ }).count(), 0);
  assert.equal(await box.inputValue(), comment, "the text stays for a retry");

  // A comment within the bound, then a reply over it.
  await publish.click();
  const mine = page.getByTestId("comment").filter({ hasText: comment });
  await mine.waitFor();
  await mine.getByRole("button", { name: "Répondre" }).click();
  const reply = page.getByLabel("Votre réponse");
  await reply.fill("r".repeat(2001));
  await page.getByText(REPLY_LIMIT).waitFor();
  assert.equal(await page.getByRole("button", { name: "Répondre", exact: true }).last().isDisabled(), true);
  await reply.fill("Merci");
  await lengthenNextInsert(page, "comment_replies", 2001);
  await Promise.all([refusal(page, "comment_replies"), page.getByRole("button", { name: "Répondre", exact: true }).last().click()]);
  await toast(page, REPLY_LIMIT);

  const stored = await (await api.rest(`content_comments?content_id=eq.${lessonId}&user_id=eq.${api.user.id}&select=content`)).json();
  assert.deepEqual(stored.map((r) => r.content), [comment], "nothing over the bound was stored");
  await api.logout();
  await context.close();
});

test("a learner is told the bound of a message before sending, and a refused one says it in French", async () => {
  const account = await signUp("bornes-msg", { full_name: "Marc Bornes" });
  const { context, page } = await newPage(b.browser, { width: 375, height: 812 });
  await signIn(page, BASE_URL, account.email, account.password);
  await page.goto(`${BASE_URL}/messages`);
  await page.getByText("Professeur Martin").first().waitFor();
  const box = page.getByLabel("Votre message");
  const send = page.getByRole("button", { name: "Envoyer" });
  await box.fill("m".repeat(4001));
  await page.getByText(MESSAGE_LIMIT).waitFor();
  assert.equal(await send.isDisabled(), true);
  assert.deepEqual(await axeViolations(page), []);

  await box.fill("Bonjour !");
  await lengthenNextInsert(page, "private_messages", 4001);
  const [answer] = await Promise.all([refusal(page, "private_messages"), send.click()]);
  assert.equal(answer.status(), 400);
  await toast(page, MESSAGE_LIMIT);
  assert.equal(await page.locator("[data-sonner-toast]").filter({ hasText: "Failed to send message" }).count(), 0);
  assert.equal(await page.getByTestId("message").count(), 0);
  await context.close();
});

test("names are bounded on the sign-up and account forms, and a refused save says why in French", async () => {
  const { context, page } = await newPage(b.browser, { width: 375, height: 812 });
  await page.goto(`${BASE_URL}/inscription`);
  await page.getByLabel("Nom complet").fill("N".repeat(101));
  await page.getByRole("button", { name: "S'inscrire" }).click();
  await page.getByText(NAME_LIMIT).waitFor();
  assert.equal(page.url(), `${BASE_URL}/inscription`, "the form was not sent");

  const account = await signUp("bornes-nom", { full_name: "Nina Bornes" });
  await signIn(page, BASE_URL, account.email, account.password);
  await page.goto(`${BASE_URL}/compte`);
  const name = page.getByLabel("Nom complet");
  await name.fill("N".repeat(101));
  await page.getByText(NAME_LIMIT).waitFor();
  assert.equal(await page.getByRole("button", { name: "Enregistrer" }).isDisabled(), true);
  assert.deepEqual(await axeViolations(page), []);

  // The database refuses what the form would not send: the toast says why, in French.
  await name.fill("Nina B.");
  await rewriteNext(page, "profiles", "PATCH", (body) => ({ ...body, full_name: "N".repeat(101) }));
  await page.getByRole("button", { name: "Enregistrer" }).click();
  const error = page.locator("[data-sonner-toast]").filter({ hasText: "Erreur lors de la mise à jour du profil" });
  await error.waitFor();
  await error.getByText(NAME_LIMIT).waitFor();
  const token = await pageAccessToken(page);
  const key = await anonKey();
  const [profile] = await (await fetch(`${BASE_URL}/rest/v1/profiles?email=eq.${encodeURIComponent(account.email)}&select=full_name`, { headers: { apikey: key, authorization: `Bearer ${token}` } })).json();
  assert.equal(profile.full_name, "Nina Bornes");
  await context.close();
});
