import { test } from "node:test";
import { BASE_URL, apiSession, axeViolations, newPage, useBrowser } from "./support.mjs";
import { DEMO, horizontalOverflow, signIn } from "./browser.mjs";
import { signUp } from "./admin-support.mjs";
import assert from "node:assert/strict";

const b = useBrowser();

/** Signs the page's device out, so the demo accounts stay within their two devices. */
async function signOut(page) {
  await page.goto(`${BASE_URL}/compte`);
  await Promise.all([page.waitForResponse((r) => r.url().includes("/auth/v1/logout")), page.getByRole("button", { name: "Déconnexion" }).last().click()]);
}

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
  await signOut(learner.page);
  await signOut(admin.page);
  await learner.context.close();
  await admin.context.close();
});

test("the admin's conversation list marks each learner's unread messages until the conversation is read", async () => {
  const learnerAccount = await signUp("unread", { full_name: "Zoé Unread" });
  const admin = await newPage(b.browser, { width: 375, height: 812 });
  await signIn(admin.page, BASE_URL, DEMO.contact.email, DEMO.contact.password);
  await admin.page.goto(`${BASE_URL}/messages`);
  const conversation = admin.page.locator(`[data-testid="conversation"][data-email="${learnerAccount.email}"]`);
  await conversation.waitFor();
  assert.equal(await conversation.getByTestId("conversation-unread").count(), 0);

  const learner = await newPage(b.browser);
  await signIn(learner.page, BASE_URL, learnerAccount.email, learnerAccount.password);
  await learner.page.goto(`${BASE_URL}/messages`);
  for (const text of ["Bonjour !", "Une question sur le cours."]) {
    await learner.page.getByLabel("Votre message").fill(text);
    await learner.page.getByRole("button", { name: "Envoyer" }).click();
    await learner.page.getByTestId("message").filter({ hasText: text }).waitFor();
  }

  // Live, without reload: the count on that learner's conversation, which moves to the top.
  const marker = conversation.getByTestId("conversation-unread");
  await marker.filter({ hasText: "2" }).waitFor({ timeout: 15_000 });
  assert.equal(await marker.getAttribute("aria-label"), "2 messages non lus");
  assert.equal(await admin.page.getByTestId("conversation").first().getAttribute("data-email"), learnerAccount.email);
  assert.deepEqual(await axeViolations(admin.page), []);
  assert.equal(await horizontalOverflow(admin.page), 0);

  // Opening the conversation reads it: the marker goes, and stays gone after a reload.
  await conversation.getByRole("button").click();
  await admin.page.getByTestId("message").filter({ hasText: "Une question sur le cours." }).waitFor();
  await marker.waitFor({ state: "detached" });
  await admin.page.reload();
  await conversation.waitFor();
  assert.equal(await conversation.getByTestId("conversation-unread").count(), 0);

  await signOut(learner.page);
  await signOut(admin.page);
  await learner.context.close();
  await admin.context.close();
});
