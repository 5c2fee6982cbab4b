import assert from "node:assert/strict";
import { test } from "node:test";
import { BASE_URL, axeViolations, newPage, uniqueEmail, useBrowser } from "./support.mjs";
import { horizontalOverflow } from "./browser.mjs";

const b = useBrowser();

test("a visitor browses the landing page, books and courses", async () => {
  const { context, page } = await newPage(b.browser);
  await page.goto(BASE_URL);
  await page.getByRole("link", { name: "Commencer maintenant" }).waitFor();
  await page.getByRole("heading", { name: "Livres Pédagogiques" }).waitFor();
  assert.deepEqual(await axeViolations(page), []);

  await page.getByRole("link", { name: "Découvrir nos cours" }).click();
  await page.getByRole("heading", { name: "Cours d'anglais" }).waitFor();
  await page.getByText("Connexion requise").waitFor();
  const cards = page.getByTestId("course-card");
  await cards.first().waitFor();
  // Visitors see public courses only, each with a 'Gratuite' badge and a sign-up button.
  assert.equal(await cards.filter({ hasText: "Payante" }).count(), 0);
  assert.ok((await cards.filter({ hasText: "Gratuite" }).count()) >= 1);
  assert.deepEqual(await axeViolations(page), []);

  await page.goto(`${BASE_URL}/livres`);
  await page.getByTestId("book-card").first().waitFor();
  assert.equal(await page.locator('[data-testid="book-card"][data-state="login-required"]').count(), await page.getByTestId("book-card").count());
  await page.getByText("Connexion requise").first().waitFor();
  assert.deepEqual(await axeViolations(page), []);

  await page.goto(`${BASE_URL}/une-page-qui-n-existe-pas`);
  await page.getByText("Désolé, cette page n'existe pas").waitFor();
  await context.close();
});

test("a visitor signs up after the French validation errors", async () => {
  const { context, page } = await newPage(b.browser, { width: 375, height: 812 });
  await page.goto(`${BASE_URL}/inscription`);
  await page.getByRole("heading", { name: "Créer un compte" }).waitFor();
  assert.equal(await page.getByLabel("Niveau d'anglais").inputValue(), "debutant");
  await page.getByRole("button", { name: "S'inscrire" }).click();
  for (const text of ["Le nom est requis", "Email requis", "Pays requis", "Numéro WhatsApp requis", "Le mot de passe doit contenir au moins 6 caractères", "Veuillez confirmer votre mot de passe"]) {
    await page.getByText(text).waitFor();
  }
  await page.getByLabel("Email").fill("pas-un-email");
  await page.getByLabel("Mot de passe", { exact: true }).fill("secret1");
  await page.getByLabel("Confirmer le mot de passe").fill("secret2");
  await page.getByRole("button", { name: "S'inscrire" }).click();
  await page.getByText("Email invalide").waitFor();
  await page.getByText("Les mots de passe ne correspondent pas").waitFor();
  assert.equal(await horizontalOverflow(page), 0);
  assert.deepEqual(await axeViolations(page), []);

  await page.getByLabel("Nom complet").fill("Fatou Ndiaye");
  await page.getByLabel("Email").fill(uniqueEmail("visiteur"));
  await page.getByLabel("Pays").fill("Sénégal");
  await page.getByLabel("Numéro WhatsApp").fill("+221 77 000 00 00");
  await page.getByLabel("Confirmer le mot de passe").fill("secret1");
  await page.getByRole("button", { name: "S'inscrire" }).click();
  await page.getByText("Inscription réussie").waitFor();
  await page.getByRole("heading", { name: /Bienvenue sur/ }).waitFor();
  await context.close();
});

test("login refuses blank fields in French", async () => {
  const { context, page } = await newPage(b.browser);
  await page.goto(`${BASE_URL}/connexion`);
  await page.getByLabel("Email").fill("   ");
  await page.getByRole("button", { name: "Se connecter" }).click();
  await page.getByText("Veuillez remplir tous les champs").waitFor();
  assert.deepEqual(await axeViolations(page), []);
  await context.close();
});
