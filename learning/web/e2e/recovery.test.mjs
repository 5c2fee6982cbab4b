// The password-recovery page: the mail's link always opens 'Nouveau mot de passe' (whatever
// the timing between supabase-js taking the session from the URL and the page loading), and a
// link that failed says why, in French.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BASE_URL, apiSession, latestMailLink, newAccount, newPage, requestRecovery, useBrowser } from "./support.mjs";
import { VIEWPORTS, horizontalOverflow } from "./browser.mjs";

const b = useBrowser();
const RUNS = 10;

test(`the recovery link opens 'Nouveau mot de passe' every time (${RUNS} runs)`, async () => {
  const { email } = await newAccount("recovery-runs");
  for (let run = 1; run <= RUNS; run += 1) {
    await requestRecovery(email);
    const link = await latestMailLink(email);
    const { context, page } = await newPage(b.browser, run % 2 ? VIEWPORTS.mobile : VIEWPORTS.desktop);
    await page.goto(link);
    await page.getByRole("heading", { name: "Nouveau mot de passe" }).waitFor();
    // The form is usable once the link's session is in (never the request form meanwhile).
    await page.waitForFunction(() => document.querySelector("form fieldset")?.disabled === false);
    assert.equal(await page.getByRole("button", { name: "Envoyer le lien" }).count(), 0, `run ${run}: the request form`);
    assert.equal(await page.getByRole("heading", { name: "Nouveau mot de passe" }).count(), 1, `run ${run}`);
    assert.equal(await horizontalOverflow(page), 0, `run ${run}: sideways scroll`);
    if (run === RUNS) {
      await page.getByLabel("Nouveau mot de passe").fill("recovered-pass-9");
      await page.getByLabel("Confirmer le mot de passe").fill("recovered-pass-9");
      await page.getByRole("button", { name: "Enregistrer le mot de passe" }).click();
      await page.getByText("Mot de passe mis à jour avec succès").waitFor();
      await page.getByRole("heading", { name: /Bienvenue sur/ }).waitFor();
      const signedIn = await apiSession(email, "recovered-pass-9");
      assert.equal(signedIn.user.email, email);
      await signedIn.logout();
    }
    await context.close();
  }
});

test("a used or expired link says so in French, above the request form", async () => {
  const { email } = await newAccount("recovery-used");
  await requestRecovery(email);
  const link = await latestMailLink(email);
  const first = await newPage(b.browser);
  await first.page.goto(link);
  await first.page.getByRole("heading", { name: "Nouveau mot de passe" }).waitFor();
  await first.context.close();

  const again = await newPage(b.browser, VIEWPORTS.mobile);
  await again.page.goto(link);
  await again.page.getByTestId("recovery-error").getByText("Ce lien n'est plus valide : il a déjà été utilisé ou il a expiré.", { exact: false }).waitFor();
  await again.page.getByRole("button", { name: "Envoyer le lien" }).waitFor();
  assert.equal(await horizontalOverflow(again.page), 0);
  await again.context.close();
});

test("every error a link can bring is shown in French", async () => {
  const { page, context } = await newPage(b.browser);
  const cases = {
    otp_expired: "Ce lien n'est plus valide",
    session_limit_reached: "Vous avez atteint le nombre maximum de sessions actives.",
    user_banned: "Ce compte est suspendu.",
    over_request_rate_limit: "Trop de tentatives.",
    unexpected_failure: "Ce lien n'a pas pu être utilisé.",
  };
  for (const [code, text] of Object.entries(cases)) {
    await page.goto("about:blank"); // a fresh load each time: the fragment is read at start-up
    await page.goto(`${BASE_URL}/mot-de-passe-oublie#error=access_denied&error_code=${code}&error_description=Email+link+is+invalid+or+has+expired`);
    await page.getByTestId("recovery-error").getByText(text, { exact: false }).waitFor();
    assert.equal(await page.getByText("Email link is invalid or has expired").count(), 0, code);
  }
  await context.close();
});

/** The latest mail to `email` in the dev inbox, whole (Subject, Text, HTML, Link). */
async function latestMail(email) {
  const list = await (await fetch(`${BASE_URL}/inbox/api/v1/messages?email=${encodeURIComponent(email)}&limit=1`)).json();
  assert.ok(list.messages?.length, `no mail for ${email}`);
  return (await fetch(`${BASE_URL}/inbox/api/v1/message/${list.messages[0].ID}`)).json();
}

test("the recovery mail is the site's French one (mail/recovery.html), and its button opens 'Nouveau mot de passe'", async () => {
  const { email } = await newAccount("recovery-french");
  const { context, page } = await newPage(b.browser, VIEWPORTS.mobile);
  await page.goto(`${BASE_URL}/mot-de-passe-oublie`);
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Envoyer le lien" }).click();
  await page.getByText("un email de réinitialisation vient d'être envoyé", { exact: false }).waitFor();

  const mail = await latestMail(email);
  assert.equal(mail.Subject, "Réinitialisez votre mot de passe — English Facile");
  assert.match(mail.Text, /Vous avez demandé à réinitialiser le mot de passe de votre compte/);
  assert.ok(mail.Text.includes(email), "the mail names the account");
  for (const english of ["Reset Password", "Follow this link", "Alternatively", "enter the code"]) {
    assert.ok(!mail.HTML.includes(english) && !mail.Text.includes(english), `English in the mail: ${english}`);
  }
  // The mail as a reader sees it: its one button is the link, which opens the new-password form.
  await page.setContent(mail.HTML);
  const button = page.getByRole("link", { name: "Choisir un nouveau mot de passe" });
  assert.equal(await button.getAttribute("href"), mail.Link);
  await button.click();
  await page.getByRole("heading", { name: "Nouveau mot de passe" }).waitFor();
  await context.close();
});
