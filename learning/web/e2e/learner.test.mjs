import assert from "node:assert/strict";
import { test } from "node:test";
import { BASE_URL, axeViolations, newPage, pageAccessToken, useBrowser, anonKey } from "./support.mjs";
import { DEMO, signIn } from "./browser.mjs";

const b = useBrowser();

test("a learner watches a lesson, comments, replies, downloads a permitted book and is refused a restricted one", async () => {
  const { context, page } = await newPage(b.browser);
  await signIn(page, BASE_URL, DEMO.learner.email, DEMO.learner.password);
  await page.getByText("Connexion réussie").waitFor();
  assert.deepEqual(await axeViolations(page), []);

  // Public course, learner page: progress and the lesson carousel.
  await page.goto(`${BASE_URL}/cours`);
  const card = page.getByTestId("course-card").filter({ hasText: "Les bases de l'anglais" });
  await card.getByRole("link", { name: /Accéder au cours/ }).click();
  await page.getByRole("heading", { name: "Les bases de l'anglais" }).waitFor();
  await page.getByTestId("progress-text").waitFor();
  assert.deepEqual(await axeViolations(page), []);
  await page.getByRole("button", { name: /^Leçon 1 :/ }).click();
  await page.getByRole("link", { name: "Ouvrir la leçon" }).click();

  // Lesson viewer: 16:9 embed with the player parameters, French date.
  const frame = page.locator("iframe");
  await frame.waitFor();
  const src = await frame.getAttribute("src");
  assert.match(src, /^https:\/\/iframe\.mediadelivery\.net\/embed\//);
  assert.match(src, /autoplay=false&loop=false&muted=false&preload=true&responsive=true/);
  await page.getByText(/Publié le \d{1,2} \S+ \d{4} à \d{2}:\d{2}/).waitFor();
  assert.deepEqual(await axeViolations(page), []);

  // Comment, then reply to it.
  const comment = `Très bonne leçon ${Date.now()}`;
  await page.getByLabel("Votre commentaire").fill(comment);
  await page.getByRole("button", { name: "Publier" }).click();
  const mine = page.getByTestId("comment").filter({ hasText: comment });
  await mine.waitFor();
  await mine.getByRole("button", { name: "Répondre" }).click();
  const reply = `Merci ! ${Date.now()}`;
  await page.getByLabel("Votre réponse").fill(reply);
  await page.getByRole("button", { name: "Répondre", exact: true }).last().click();
  await mine.getByTestId("reply").filter({ hasText: reply }).waitFor();

  // Next lesson, then the comments of the seeded one show the Admin badge of the teacher.
  await page.getByRole("button", { name: "Suivant" }).click();
  await page.getByText("Fiche : les nombres").first().waitFor();
  await page.getByTestId("reply").filter({ hasText: "Avec plaisir" }).getByText("Admin").waitFor();

  // Books: the permitted one downloads, the other is restricted.
  await page.goto(`${BASE_URL}/livres`);
  const permitted = page.locator('[data-testid="book-card"][data-state="downloadable"]');
  const restricted = page.locator('[data-testid="book-card"][data-state="restricted"]');
  await permitted.first().waitFor();
  await restricted.first().waitFor();
  assert.equal(await restricted.first().getByRole("button", { name: /Télécharger/ }).count(), 0);
  const [download] = await Promise.all([page.waitForEvent("download"), permitted.first().getByRole("button", { name: /Télécharger/ }).click()]);
  const path = await download.path();
  assert.ok(path, "the PDF was downloaded");
  assert.deepEqual(await axeViolations(page), []);

  // The storage refuses a signed URL for the restricted book's file.
  const token = await pageAccessToken(page);
  const key = await anonKey();
  const headers = { apikey: key, authorization: `Bearer ${token}` };
  const books = await (await fetch(`${BASE_URL}/rest/v1/books?select=id,title,file_path`, { headers })).json();
  const restrictedTitle = (await restricted.first().getByRole("heading").textContent()).trim();
  const file = books.find((x) => x.title === restrictedTitle).file_path;
  const signed = await fetch(`${BASE_URL}/storage/v1/object/sign/books/${file}`, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ expiresIn: 3600 }) });
  assert.ok(signed.status >= 400, `signing a restricted book is refused (got ${signed.status})`);

  // Account page and its tabs.
  await page.goto(`${BASE_URL}/compte`);
  await page.getByRole("tab", { name: "Abonnements" }).click();
  await page.getByTestId("subscription-status").filter({ hasText: "Abonnement actif" }).waitFor();
  assert.deepEqual(await axeViolations(page), []);
  await page.getByRole("button", { name: "Déconnexion" }).last().click();
  await page.getByText("Déconnexion réussie").waitFor();
  await context.close();
});
