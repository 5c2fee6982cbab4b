// Connected devices are the account's auth sessions (two at most): every way in is listed and
// can be ended, logging out ends this device only, and a recovery at the limit still lets the
// user in. An ended device says who ended it at its next status check (every 30 s, and on load).
import assert from "node:assert/strict";
import { test } from "node:test";
import { BASE_URL, apiSession, axeViolations, latestMailLink, newAccount, newPage, pageAccessToken, refreshPageSession, uniqueEmail, useBrowser } from "./support.mjs";
import { DEMO, VIEWPORTS, horizontalOverflow, signIn } from "./browser.mjs";

const b = useBrowser();
const LIMIT_MESSAGE = "Vous avez atteint le nombre maximum de sessions actives. Déconnectez-vous d'un autre appareil pour continuer.";

async function openAccount(page) {
  await page.goto(`${BASE_URL}/compte`);
  await page.getByRole("heading", { name: "Appareils connectés" }).waitFor();
  const devices = page.getByTestId("device");
  await devices.first().waitFor();
  return devices;
}

/** The page's status check (run on load) finds its session ended: it says why, then signs out. */
async function seesEnded(page, text) {
  await page.goto(`${BASE_URL}/compte`);
  await page.getByText(text).waitFor();
  await page.getByRole("heading", { name: "Connexion" }).waitFor();
}

function logoutButton(page) {
  return page.getByRole("main").getByRole("button", { name: "Déconnexion" });
}

test("a third device is refused, and a device ended elsewhere is signed out", async () => {
  const { email, password } = DEMO.newcomer;
  const first = await newPage(b.browser);
  const second = await newPage(b.browser, VIEWPORTS.mobile);
  await signIn(first.page, BASE_URL, email, password);
  await signIn(second.page, BASE_URL, email, password);

  const third = await newPage(b.browser);
  await third.page.goto(`${BASE_URL}/connexion`);
  await third.page.getByLabel("Email").fill(email);
  await third.page.getByLabel("Mot de passe", { exact: true }).fill(password);
  await third.page.getByRole("button", { name: "Se connecter" }).click();
  await third.page.getByText(LIMIT_MESSAGE).waitFor();
  await third.context.close();

  // From the first browser's account page, end the other device.
  const devices = await openAccount(first.page);
  await devices.nth(1).waitFor();
  assert.equal(await devices.count(), 2);
  await devices.filter({ hasNotText: "Cet appareil" }).getByRole("button", { name: "Terminer" }).click();
  await first.page.getByText("Session terminée").first().waitFor();

  // The second browser notices at its next status check (every 30 s) and signs out, told that
  // one of the user's own devices ended it (not an administrator).
  await second.page.getByText("Votre session a été terminée depuis un autre de vos appareils.").waitFor({ timeout: 45_000 });
  await second.page.getByRole("button", { name: "Ouvrir le menu" }).click();
  await second.page.getByRole("link", { name: "Connexion" }).waitFor();
  await logoutButton(first.page).click();  // the demo account's other suites start with no device
  await first.page.getByText("Déconnexion réussie").waitFor();
  await first.context.close();
  await second.context.close();
});

test("the sign-up device is listed and can be ended from another device", async () => {
  const email = uniqueEmail("signup-device");
  const password = "signup-pass-1";
  const signedUp = await newPage(b.browser, VIEWPORTS.mobile);
  const page = signedUp.page;
  await page.goto(`${BASE_URL}/inscription`);
  await page.getByLabel("Nom complet").fill("Nina Nouvelle");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Pays").fill("France");
  await page.getByLabel("Numéro WhatsApp").fill("+33 6 00 00 00 00");
  await page.getByLabel("Mot de passe", { exact: true }).fill(password);
  await page.getByLabel("Confirmer le mot de passe").fill(password);
  await page.getByRole("button", { name: "S'inscrire" }).click();
  await page.getByRole("heading", { name: /Bienvenue sur/ }).waitFor({ timeout: 20_000 });
  // A brand-new account is welcomed, not welcomed back.
  await page.getByText("Bienvenue, Nina Nouvelle !", { exact: false }).waitFor();
  assert.equal(await page.getByText("Ravi de vous revoir").count(), 0);

  // The session sign-up opened is a device like any other.
  const mine = await openAccount(page);
  assert.equal(await mine.count(), 1);
  assert.match(await mine.first().innerText(), /Chrome sur Linux[\s\S]*Cet appareil/);
  assert.equal(await horizontalOverflow(page), 0);

  const other = await newPage(b.browser);
  await signIn(other.page, BASE_URL, email, password);
  const both = await openAccount(other.page);
  await both.nth(1).waitFor();
  await both.filter({ hasNotText: "Cet appareil" }).getByRole("button", { name: "Terminer" }).click();
  await other.page.getByText("Session terminée").first().waitFor();
  assert.equal(await (await openAccount(other.page)).count(), 1);

  await seesEnded(page, "Votre session a été terminée depuis un autre de vos appareils.");
  await signedUp.context.close();
  await other.context.close();
});

test("logging out of one device leaves the other signed in", async () => {
  const { email, password } = await newAccount("logout-one");
  const leaving = await newPage(b.browser);
  const staying = await newPage(b.browser, VIEWPORTS.mobile);
  await signIn(leaving.page, BASE_URL, email, password);
  await signIn(staying.page, BASE_URL, email, password);

  await leaving.page.goto(`${BASE_URL}/compte`);
  await logoutButton(leaving.page).click();
  await leaving.page.getByText("Déconnexion réussie").waitFor();

  // The other device's refresh token still works, and its list shows it alone.
  assert.equal(await refreshPageSession(staying.page), 200);
  const devices = await openAccount(staying.page);
  assert.equal(await devices.count(), 1);
  assert.match(await devices.first().innerText(), /Cet appareil/);
  await leaving.context.close();
  await staying.context.close();
});

test("a recovery link at the device limit ends the least recently used device and says so", async () => {
  const { email, password } = await newAccount("limit-recovery");
  const oldest = await newPage(b.browser);
  const recent = await newPage(b.browser);
  await signIn(oldest.page, BASE_URL, email, password);
  await signIn(recent.page, BASE_URL, email, password);

  const locked = await newPage(b.browser, VIEWPORTS.mobile);
  const page = locked.page;
  await page.goto(`${BASE_URL}/mot-de-passe-oublie`);
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Envoyer le lien" }).click();
  await page.getByText("un email de réinitialisation vient d'être envoyé", { exact: false }).waitFor();
  await page.goto(await latestMailLink(email));
  await page.getByRole("heading", { name: "Nouveau mot de passe" }).waitFor();
  await page.getByTestId("sessions-ended").waitFor();
  assert.equal(await horizontalOverflow(page), 0);

  await seesEnded(oldest.page, "Votre session a été terminée pour laisser la place à une connexion par lien e-mail sur un autre appareil (2 appareils au maximum).");
  assert.equal(await (await openAccount(recent.page)).count(), 2);

  // The new password ends the other sessions (as GoTrue does), and that device is told why.
  await page.goto(`${BASE_URL}/mot-de-passe-oublie`);
  await page.getByLabel("Nouveau mot de passe").fill("recovered-pass-2");
  await page.getByLabel("Confirmer le mot de passe").fill("recovered-pass-2");
  await page.getByRole("button", { name: "Enregistrer le mot de passe" }).click();
  await page.getByText("Mot de passe mis à jour avec succès").waitFor();
  await seesEnded(recent.page, "Votre mot de passe a été modifié sur un autre appareil. Veuillez vous reconnecter.");
  for (const context of [oldest.context, recent.context, locked.context]) await context.close();
});

test("a device whose refresh is refused (its session ended while away) says so and signs out", async () => {
  const { email, password } = await newAccount("refresh-refused");
  const away = await newPage(b.browser, VIEWPORTS.mobile);
  await signIn(away.page, BASE_URL, email, password);
  await openAccount(away.page);
  const token = await pageAccessToken(away.page);
  const sessionId = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString()).session_id;

  // Another device ends it while this one is away (e.g. a laptop asleep).
  const other = await apiSession(email, password);
  const ended = await other.rest(`user_sessions?id=eq.${sessionId}`, { method: "PATCH", body: JSON.stringify({ is_current: false }) });
  assert.equal(ended.status, 204);

  // Back: its access token has expired, so supabase-js refreshes, is refused and signs out.
  await away.page.evaluate(() => {
    const name = Object.keys(localStorage).find((k) => /^sb-.*-auth-token$/.test(k));
    localStorage.setItem(name, JSON.stringify({ ...JSON.parse(localStorage.getItem(name)), expires_at: 0 }));
    window.dispatchEvent(new Event("visibilitychange"));
  });
  await away.page.getByText("Votre session a pris fin. Veuillez vous reconnecter.").waitFor();
  await away.page.getByRole("heading", { name: "Connexion" }).waitFor();
  await other.logout();
  await away.context.close();
});

test("a sign-in refused at the limit offers the way out: the recovery link, which frees the least recently used device", async () => {
  const { email, password } = await newAccount("limit-way-out");
  const oldest = await newPage(b.browser);
  const recent = await newPage(b.browser);
  await signIn(oldest.page, BASE_URL, email, password);
  await signIn(recent.page, BASE_URL, email, password);

  const third = await newPage(b.browser, VIEWPORTS.mobile);
  const page = third.page;
  await page.goto(`${BASE_URL}/connexion`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Mot de passe", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Se connecter" }).click();
  await page.getByText(LIMIT_MESSAGE).waitFor();
  const help = page.getByTestId("device-limit-help");
  await help.getByText("le lien reçu par e-mail vous connecte sur cet appareil et libère l'appareil utilisé le moins récemment", { exact: false }).waitFor();
  // A device also frees itself: the server's 7 idle days and 30 days (E2E_ENV's SUPALITE_AUTH_SESSIONS_*).
  await help.getByText("un appareil se libère de lui-même après 7 jours sans utilisation, et au plus tard 30 jours après sa connexion", { exact: false }).waitFor();
  assert.equal(await horizontalOverflow(page), 0);
  assert.deepEqual(await axeViolations(page), []);

  // The way out: the recovery page, the address already typed; its link signs this device in.
  await help.getByRole("link", { name: "Réinitialiser mon mot de passe" }).click();
  await page.getByRole("heading", { name: "Mot de passe oublié" }).waitFor();
  assert.equal(await page.getByLabel("Email").inputValue(), email);
  await page.getByRole("button", { name: "Envoyer le lien" }).click();
  await page.getByText("un email de réinitialisation vient d'être envoyé", { exact: false }).waitFor();
  await page.goto(await latestMailLink(email));
  await page.getByRole("heading", { name: "Nouveau mot de passe" }).waitFor();
  await page.getByTestId("sessions-ended").waitFor();
  await seesEnded(oldest.page, "Votre session a été terminée pour laisser la place à une connexion par lien e-mail sur un autre appareil (2 appareils au maximum).");
  assert.equal(await (await openAccount(recent.page)).count(), 2); // the recent device and this one
  for (const context of [oldest.context, recent.context, third.context]) await context.close();
});

test("sign-in and sign-up go back to ?next= (a path of the site only)", async () => {
  const { email, password } = await newAccount("next-path");
  const { context, page } = await newPage(b.browser);
  await page.goto(`${BASE_URL}/connexion?next=${encodeURIComponent("/cours?filtre=1")}`);
  // the sign-up link carries it along
  assert.equal(await page.getByRole("link", { name: "S'inscrire" }).getAttribute("href"), "/inscription?next=%2Fcours%3Ffiltre%3D1");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Mot de passe", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Se connecter" }).click();
  await page.waitForURL(`${BASE_URL}/cours?filtre=1`);
  await logoutButtonOf(page);

  // another origin is never followed: "/" instead
  for (const next of ["//evil.example/", "https://evil.example/", "/\\evil.example"]) {
    await page.goto(`${BASE_URL}/connexion?next=${encodeURIComponent(next)}`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Mot de passe", { exact: true }).fill(password);
    await page.getByRole("button", { name: "Se connecter" }).click();
    await page.getByRole("heading", { name: /Bienvenue sur/ }).waitFor({ timeout: 20_000 });
    assert.equal(new URL(page.url()).origin + new URL(page.url()).pathname, `${BASE_URL}/`, next);
    await logoutButtonOf(page);
  }

  // sign-up with a session (confirmations off on this server) lands on next too
  await page.goto(`${BASE_URL}/inscription?next=${encodeURIComponent("/livres")}`);
  await page.getByLabel("Nom complet").fill("Noé Suivant");
  await page.getByLabel("Email").fill(uniqueEmail("next-signup"));
  await page.getByLabel("Pays").fill("France");
  await page.getByLabel("Numéro WhatsApp").fill("+33 6 00 00 00 01");
  await page.getByLabel("Mot de passe", { exact: true }).fill("next-pass-1");
  await page.getByLabel("Confirmer le mot de passe").fill("next-pass-1");
  await page.getByRole("button", { name: "S'inscrire" }).click();
  await page.waitForURL(`${BASE_URL}/livres`, { timeout: 20_000 });
  await logoutButtonOf(page);
  await context.close();
});

/** Signs the page out from the account page (the other tests' accounts keep their devices). */
async function logoutButtonOf(page) {
  await page.goto(`${BASE_URL}/compte`);
  await logoutButton(page).click();
  await page.getByText("Déconnexion réussie").waitFor();
}
