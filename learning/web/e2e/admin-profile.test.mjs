// /admin when the admin's own profile cannot be read: the failure is said with "Réessayer"
// (not "Chargement..." for ever), and a successful retry opens the back-office.
import assert from "node:assert/strict";
import { test } from "node:test";
import { BASE_URL, axeViolations, newPage, screenshot, useBrowser } from "./support.mjs";
import { VIEWPORTS, signIn } from "./browser.mjs";
import { PASSWORD, newAdmin } from "./admin-support.mjs";

const b = useBrowser();

for (const [label, viewport] of Object.entries(VIEWPORTS)) {
  test(`${label}: a failed read of the admin's profile shows an error and "Réessayer", which recovers`, async () => {
    const admin = await newAdmin();
    const { context, page } = await newPage(b.browser, viewport);
    await signIn(page, BASE_URL, admin.email, PASSWORD);

    // The reads of this admin's own profile fail until `failing` is turned off.
    let failing = true;
    const ownProfile = (url) => url.pathname.endsWith("/rest/v1/profiles") && url.searchParams.get("id") === `eq.${admin.id}`;
    await page.route(ownProfile, (route) =>
      failing && route.request().method() === "GET"
        ? route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ message: "Service Unavailable" }) })
        : route.continue(),
    );
    await page.goto(`${BASE_URL}/admin`);
    const panel = page.getByRole("alert").filter({ hasText: "Impossible de charger votre profil" });
    await panel.waitFor({ timeout: 10_000 });
    assert.equal(await page.getByText("Chargement...").count(), 0, "still loading beside the error");
    await screenshot(page, `admin-profile-error-${label}`);
    assert.deepEqual(await axeViolations(page), []);

    failing = false;
    await panel.getByRole("button", { name: "Réessayer" }).click();
    await page.getByRole("heading", { name: "Administration" }).waitFor();
    await page.getByRole("tab", { name: "Utilisateurs" }).waitFor();
    await context.close();
  });
}
