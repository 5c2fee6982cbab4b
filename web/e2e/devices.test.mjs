import assert from "node:assert/strict";
import { test } from "node:test";
import { BASE_URL, newPage, useBrowser } from "./support.mjs";
import { DEMO, signIn } from "./browser.mjs";

const b = useBrowser();

test("a third device is refused, and a device ended elsewhere is signed out", async () => {
  const { email, password } = DEMO.newcomer;
  const first = await newPage(b.browser);
  const second = await newPage(b.browser, { width: 375, height: 812 });
  await signIn(first.page, BASE_URL, email, password);
  await signIn(second.page, BASE_URL, email, password);

  const third = await newPage(b.browser);
  await third.page.goto(`${BASE_URL}/connexion`);
  await third.page.getByLabel("Email").fill(email);
  await third.page.getByLabel("Mot de passe", { exact: true }).fill(password);
  await third.page.getByRole("button", { name: "Se connecter" }).click();
  await third.page.getByText("Vous avez atteint le nombre maximum de sessions actives. Déconnectez-vous d'un autre appareil pour continuer.").waitFor();
  await third.context.close();

  // From the first browser's account page, end the other device.
  await first.page.goto(`${BASE_URL}/compte`);
  const devices = first.page.getByTestId("device");
  await devices.nth(1).waitFor();
  assert.equal(await devices.count(), 2);
  await devices.filter({ hasNotText: "Cet appareil" }).getByRole("button", { name: "Terminer" }).click();
  await first.page.getByText("Session terminée").first().waitFor();

  // The second browser notices at its next status check (every 30 s) and signs out.
  await second.page.getByText("Votre session a été terminée par un administrateur.").waitFor({ timeout: 45_000 });
  await second.page.getByRole("button", { name: "Ouvrir le menu" }).click();
  await second.page.getByRole("link", { name: "Connexion" }).waitFor();
  await first.context.close();
  await second.context.close();
});
