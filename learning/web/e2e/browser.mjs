// Headless Chromium from Debian driven by playwright-core (no browser is ever downloaded).
import { chromium } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
export const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function launch() {
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
}

export const VIEWPORTS = { mobile: { width: 375, height: 812 }, desktop: { width: 1280, height: 800 } };

/** Signs in through the login screen and waits for the welcome page. */
export async function signIn(page, baseUrl, email, password) {
  await page.goto(`${baseUrl}/connexion`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Mot de passe", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Se connecter" }).click();
  await page.getByRole("heading", { name: /Bienvenue sur/ }).waitFor({ timeout: 20_000 });
}

/** Width overflow of the document (0 when nothing scrolls horizontally). */
export function horizontalOverflow(page) {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

export const DEMO = {
  admin: { email: "admin@example.com", password: "admin-demo-123" },
  contact: { email: "prof@example.com", password: "prof-demo-123" },
  learner: { email: "eleve@example.com", password: "eleve-demo-123" },
  newcomer: { email: "nouveau@example.com", password: "eleve-demo-123" },
};
