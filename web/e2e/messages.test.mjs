import { test } from "node:test";
import { BASE_URL, apiSession, axeViolations, newPage, useBrowser } from "./support.mjs";
import { DEMO, signIn } from "./browser.mjs";
import assert from "node:assert/strict";

const b = useBrowser();

test("a learner's message makes the admin's unread dot appear without reload", async () => {
  // Start from an empty inbox for the designated administrator.
  const prof = await apiSession(DEMO.contact.email, DEMO.contact.password);
  await prof.rest(`private_messages?recipient_id=eq.${prof.user.id}&is_read=eq.false`, { method: "PATCH", body: JSON.stringify({ is_read: true }) });
  await prof.logout();

  const admin = await newPage(b.browser);
  await signIn(admin.page, BASE_URL, DEMO.contact.email, DEMO.contact.password);
  await admin.page.goto(`${BASE_URL}/cours`);
  await admin.page.getByRole("heading", { name: "Cours d'anglais" }).waitFor();
  assert.equal(await admin.page.getByTestId("unread-dot").count(), 0);

  const learner = await newPage(b.browser, { width: 375, height: 812 });
  await signIn(learner.page, BASE_URL, DEMO.learner.email, DEMO.learner.password);
  await learner.page.goto(`${BASE_URL}/messages`);
  await learner.page.getByText("Professeur Martin").waitFor();
  assert.deepEqual(await axeViolations(learner.page), []);
  const text = `Bonjour, une question ${Date.now()}`;
  await learner.page.getByLabel("Votre message").fill(text);
  await learner.page.getByRole("button", { name: "Envoyer" }).click();
  await learner.page.getByTestId("message").filter({ hasText: text }).waitFor();

  await admin.page.getByTestId("unread-dot").first().waitFor({ timeout: 15_000 });

  // The dot is hidden on the messages page itself, where the conversation gets read.
  await admin.page.goto(`${BASE_URL}/messages`);
  await admin.page.getByRole("heading", { name: "Messages" }).waitFor();
  assert.equal(await admin.page.getByTestId("unread-dot").count(), 0);
  await learner.context.close();
  await admin.context.close();
});
