// French throughout: a walk of every screen as visitor, learner and admin (dialogs opened,
// error and empty states provoked, toasts caught as they come) fails on any English sentence:
// visible text, sr-only text, aria-label, title, placeholder and alt, and every toast shown.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { BASE_URL, anonKey, apiSession, newPage, useBrowser } from "./support.mjs";
import { VIEWPORTS, signIn } from "./browser.mjs";
import { PASSWORD, newAdmin, signUp } from "./admin-support.mjs";

const b = useBrowser();

/**
 * Common English words, matched whole (case-insensitive). None is a French word the site uses
 * ("comment", "on", "message", "session", "menu", "minute", "page" are French too, so left out).
 */
const ENGLISH = [
  "the", "and", "you", "your", "yours", "failed", "fail", "error", "errors", "loading", "successfully", "success", "must", "please",
  "not", "found", "unknown", "could", "would", "should", "with", "without", "for", "from", "this", "that", "these", "those", "is", "are",
  "was", "were", "been", "be", "have", "has", "had", "do", "does", "did", "to", "of", "or", "no", "yes", "into", "about", "will", "can",
  "cannot", "already", "only", "again", "later", "try", "retry", "invalid", "required", "denied", "unauthorized", "authenticated",
  "permission", "permissions", "logged", "sign", "login", "logout", "password", "user", "users", "file", "files", "upload", "uploading",
  "uploaded", "download", "downloading", "book", "books", "course", "courses", "lesson", "lessons", "content", "reply", "replies",
  "posted", "deleted", "created", "updated", "saved", "save", "delete", "cancel", "close", "submit", "send", "search", "back", "next",
  "previous", "show", "hide", "toggle", "open", "view", "edit", "select", "enter", "valid", "title", "least", "characters", "browser",
  "device", "access", "generate", "fetching", "creating", "granting", "revoking", "record", "stored", "path", "missing", "provided",
  "something", "went", "wrong", "network", "request", "server", "while", "when", "what", "which", "there", "here", "new", "row", "violates", "policy", "security", "level",
];
const ENGLISH_WORD = new RegExp(`(?<![\\p{L}\\p{N}'’-])(${ENGLISH.join("|")})(?![\\p{L}\\p{N}'’-])`, "iu");
/** '{browser} on {OS}' device names (the one English "on" to catch) and English size units. */
const DEVICE_ON = /\b(Chrome|Firefox|Safari|Edge|Opera|Browser) on \w|\b\d+(\.\d+)? ?(B|KB|MB|GB)\b/;

/** What may stay as it is: brand and product names, addresses, the learners' own content. */
const ALLOWED = [
  /[\w.+-]+@[\w-]+(\.[\w-]+)+/g, // e-mail addresses
  /https?:\/\/\S+/g, // URLs (embed examples)
  /\b(YouTube|Vimeo|WhatsApp|PDF|JPEG|PNG|TOEIC|English Facile|Bunny|Stream|iframe|embed)\b/g,
];

function englishIn(text) {
  let rest = text;
  for (const pattern of ALLOWED) rest = rest.replace(pattern, " ");
  return ENGLISH_WORD.test(rest) || DEVICE_ON.test(rest);
}

/** Every toast ever shown on the page, kept even once it is gone. */
const RECORD_TOASTS = () => {
  window.__toasts = [];
  new MutationObserver(() => {
    for (const t of document.querySelectorAll("[data-sonner-toast]")) {
      const text = t.innerText.trim();
      if (text && !window.__toasts.includes(text)) window.__toasts.push(text);
    }
  }).observe(document, { childList: true, subtree: true, characterData: true });
};

/** The page's French to check: text of elements seen or read aloud, labels, placeholders, toasts. */
function pageStrings(page) {
  return page.evaluate(() => {
    const out = new Set();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      const text = node.textContent.replace(/\s+/g, " ").trim();
      if (!text || !el || el.closest("script, style, noscript, [aria-hidden='true']")) continue;
      if (!el.checkVisibility({ visibilityProperty: true })) continue;
      out.add(text);
    }
    for (const el of document.querySelectorAll("[aria-label], [title], [placeholder], img[alt], [aria-description]")) {
      if (!el.checkVisibility({ visibilityProperty: true }) && !el.closest("[data-sonner-toaster]")) continue;
      for (const name of ["aria-label", "title", "placeholder", "alt", "aria-description"]) {
        const value = el.getAttribute(name)?.trim();
        if (value) out.add(value);
      }
    }
    if (document.title) out.add(document.title);
    for (const t of window.__toasts ?? []) out.add(t);
    return [...out];
  });
}

/** A walk's findings: where, and the English string seen there. */
class Walk {
  constructor(role) {
    this.role = role;
    this.found = [];
    this.checked = 0;
  }
  async check(page, where) {
    this.checked++;
    for (const text of await pageStrings(page)) if (englishIn(text)) this.found.push({ where, text });
  }
  /** One line per English string: where it was first seen, and on how many screens. */
  report() {
    const byText = new Map();
    for (const { where, text } of this.found) byText.set(text, [...(byText.get(text) ?? []), where]);
    return [...byText].map(([text, wheres]) => `${JSON.stringify(text)} — ${this.role} ${wheres[0]}${wheres.length > 1 ? ` (+${wheres.length - 1} screens)` : ""}`);
  }
}

async function open(page, path, ready) {
  await page.goto(`${BASE_URL}${path}`);
  if (ready) await ready.waitFor();
  await page.waitForLoadState("networkidle");
}

/** A read that fails: the table's REST answers 500 while `fn` runs. */
async function failing(page, table, fn) {
  const matcher = (url) => url.pathname.endsWith(`/rest/v1/${table}`);
  const handler = (route) => route.fulfill({ status: 500, contentType: "application/json", body: JSON.stringify({ code: "XX000", message: "internal error" }) });
  await page.route(matcher, handler);
  try {
    await fn();
  } finally {
    await page.unroute(matcher, handler);
  }
}

const state = {};
before(async () => {
  const key = await anonKey();
  const courses = await (await fetch(`${BASE_URL}/rest/v1/courses?select=id,title,visibility`, { headers: { apikey: key } })).json();
  state.publicCourse = courses.find((c) => c.visibility === "public");
  const admin = await apiSession("admin@example.com", "admin-demo-123");
  const all = await (await admin.rest("courses?select=id,title,visibility")).json();
  state.privateCourse = all.find((c) => c.visibility !== "public");
  const lessons = await (await admin.rest(`course_content?select=id,title,file_type,course_id&order=order_index`)).json();
  state.publicLesson = lessons.find((l) => l.course_id === state.publicCourse.id);
  state.privateLesson = lessons.find((l) => l.course_id === state.privateCourse.id);
  await admin.logout();
});

test("a visitor sees French only, at 375 and 1280 px", async () => {
  const walk = new Walk("visitor");
  for (const [label, viewport] of Object.entries(VIEWPORTS)) {
    const { context, page } = await newPage(b.browser, viewport);
    await context.addInitScript(RECORD_TOASTS);
    await open(page, "/", page.getByRole("heading", { level: 1 }));
    await walk.check(page, `${label} /`);
    if (label === "mobile") {
      await page.getByRole("button", { name: /menu/i }).first().click();
      await walk.check(page, `${label} / (menu)`);
    }
    await open(page, "/connexion", page.getByRole("button", { name: "Se connecter" }));
    await page.getByRole("button", { name: "Se connecter" }).click();
    await walk.check(page, `${label} /connexion (empty)`);
    await page.getByLabel("Email").fill("personne@example.org");
    await page.getByLabel("Mot de passe", { exact: true }).fill("mauvais-mot-de-passe");
    await page.getByRole("button", { name: "Se connecter" }).click();
    await page.getByRole("alert").first().waitFor();
    await walk.check(page, `${label} /connexion (refused)`);
    await open(page, "/inscription", page.getByRole("button", { name: /inscri/i }).last());
    await page.getByRole("button", { name: /inscri/i }).last().click();
    await walk.check(page, `${label} /inscription (empty)`);
    await open(page, "/mot-de-passe-oublie");
    await walk.check(page, `${label} /mot-de-passe-oublie`);
    await open(page, "/livres", page.getByTestId("book-card").first());
    await walk.check(page, `${label} /livres`);
    await page.getByTestId("book-card").first().getByRole("button").first().click();
    await page.getByRole("dialog").waitFor();
    await walk.check(page, `${label} /livres (book dialog)`);
    await page.keyboard.press("Escape");
    await page.getByPlaceholder("Rechercher un livre...").fill("zzzz introuvable");
    await walk.check(page, `${label} /livres (no match)`);
    await open(page, "/cours", page.getByTestId("course-card").first());
    await walk.check(page, `${label} /cours`);
    await page.getByPlaceholder("Rechercher un cours...").fill("zzzz introuvable");
    await walk.check(page, `${label} /cours (no match)`);
    await open(page, `/course/${state.publicCourse.id}`);
    await walk.check(page, `${label} public course`);
    await open(page, `/course/${state.privateCourse.id}`);
    await walk.check(page, `${label} private course`);
    await open(page, `/cours-detail/${state.publicCourse.id}`);
    await walk.check(page, `${label} course detail`);
    await open(page, `/video/${state.publicLesson.id}`);
    await walk.check(page, `${label} lesson (signed out)`);
    await open(page, "/course/00000000-0000-4000-8000-000000000000");
    await walk.check(page, `${label} missing course`);
    await open(page, "/video/00000000-0000-4000-8000-000000000000");
    await walk.check(page, `${label} missing lesson`);
    for (const path of ["/contact", "/mentions-legales", "/politique-confidentialite", "/page-qui-n-existe-pas", "/messages", "/compte", "/admin"]) {
      await open(page, path);
      await walk.check(page, `${label} ${path}`);
    }
    await failing(page, "books", async () => {
      await open(page, "/livres", page.getByRole("alert").first());
      await walk.check(page, `${label} /livres (read failed)`);
    });
    await failing(page, "courses", async () => {
      await open(page, "/cours");
      await page.waitForTimeout(1500);
      await walk.check(page, `${label} /cours (read failed)`);
    });
    await context.close();
  }
  assert.deepEqual(walk.report(), [], `English seen by a visitor (${walk.checked} screens)`);
});

test("a learner sees French only: courses, lessons, comments, messages, account, errors", async () => {
  const walk = new Walk("learner");
  for (const [label, viewport] of Object.entries(VIEWPORTS)) {
    const learner = await signUp(`fr-${label}`, { full_name: `Élève Français ${label}` });
    const { context, page } = await newPage(b.browser, viewport);
    await context.addInitScript(RECORD_TOASTS);
    await signIn(page, BASE_URL, learner.email, PASSWORD);
    await walk.check(page, `${label} welcome`);
    await open(page, "/livres", page.getByTestId("book-card").first());
    await page.getByTestId("book-card").first().getByRole("button").first().click();
    await page.getByRole("dialog").waitFor();
    await walk.check(page, `${label} /livres (restricted book)`);
    await page.keyboard.press("Escape");
    await open(page, "/cours", page.getByTestId("course-card").first());
    await walk.check(page, `${label} /cours`);
    await open(page, `/course/${state.publicCourse.id}`);
    await walk.check(page, `${label} public course`);
    await open(page, `/course/${state.privateCourse.id}`);
    await walk.check(page, `${label} private course`);
    const contact = page.getByRole("button", { name: /Contacter|Nous contacter|Demander/ }).first();
    if (await contact.count()) {
      await contact.click();
      await walk.check(page, `${label} private course (contact dialog)`);
      await page.keyboard.press("Escape");
    }
    await open(page, `/cours-detail/${state.privateCourse.id}`);
    await walk.check(page, `${label} private course detail`);
    await open(page, `/video/${state.privateLesson.id}`);
    await walk.check(page, `${label} refused lesson`);

    // A lesson: comment, reply, delete both.
    await open(page, `/video/${state.publicLesson.id}`, page.getByTestId("comments-list"));
    await walk.check(page, `${label} lesson`);
    await page.getByLabel("Votre commentaire").fill(`Commentaire ${label} ${Date.now()}`);
    await page.getByRole("button", { name: "Publier" }).click();
    const mine = page.getByTestId("comment").filter({ hasText: `Commentaire ${label}` }).last();
    await mine.waitFor();
    await mine.getByRole("button", { name: "Répondre" }).click();
    await page.getByLabel("Votre réponse").fill("Réponse");
    await page.getByRole("button", { name: "Répondre", exact: true }).last().click();
    await mine.getByTestId("reply").first().waitFor();
    await walk.check(page, `${label} lesson (comment and reply posted)`);
    await mine.getByTestId("reply").first().getByRole("button", { name: "Supprimer la réponse" }).click();
    await mine.getByRole("button", { name: "Supprimer le commentaire" }).first().click();
    await mine.waitFor({ state: "detached" });
    await walk.check(page, `${label} lesson (comment and reply deleted)`);
    await failing(page, "content_comments", async () => {
      await page.reload();
      await page.getByTestId("comments-list").getByText(/Impossible|Réessayer/).first().waitFor({ timeout: 15_000 }).catch(() => undefined);
      await walk.check(page, `${label} lesson (comments failed)`);
    });

    // Messages: send, then delete.
    await open(page, "/messages", page.getByLabel("Votre message"));
    await walk.check(page, `${label} /messages`);
    await page.getByLabel("Votre message").fill(`Bonjour ${label}`);
    await page.getByRole("button", { name: "Envoyer" }).click();
    await page.getByTestId("message").filter({ hasText: `Bonjour ${label}` }).waitFor();
    await page.getByRole("button", { name: "Supprimer le message" }).last().click();
    await page.waitForTimeout(800);
    await walk.check(page, `${label} /messages (sent and deleted)`);
    await failing(page, "private_messages", async () => {
      await page.reload();
      await page.waitForTimeout(2500);
      await walk.check(page, `${label} /messages (read failed)`);
    });

    // Account: both tabs, a refused password, the devices.
    await open(page, "/compte", page.getByRole("tab", { name: "Informations" }));
    await walk.check(page, `${label} /compte`);
    await page.getByRole("tab", { name: "Mot de passe" }).click();
    await page.getByLabel("Nouveau mot de passe").fill("abc");
    await page.getByLabel("Confirmer le mot de passe").fill("abd");
    await page.getByRole("button", { name: /Mettre à jour|Changer|Enregistrer/ }).last().click();
    await walk.check(page, `${label} /compte (password refused)`);
    await page.getByLabel("Nouveau mot de passe").fill(PASSWORD);
    await page.getByLabel("Confirmer le mot de passe").fill(PASSWORD);
    await page.getByRole("button", { name: /Mettre à jour|Changer|Enregistrer/ }).last().click();
    await page.waitForTimeout(1500);
    await walk.check(page, `${label} /compte (same password)`);
    await open(page, "/admin");
    await page.waitForTimeout(500);
    await walk.check(page, `${label} /admin (refused)`);
    await context.close();
  }
  assert.deepEqual(walk.report(), [], `English seen by a learner (${walk.checked} screens)`);
});

test("an admin sees French only: every tab, dialog, course screen and error", async () => {
  const walk = new Walk("admin");
  const admin = await newAdmin();
  const learner = await signUp("fr-admin-view", { full_name: "Élève Vue Admin", country: "France", whatsapp_number: "+33600000000" });
  for (const [label, viewport] of Object.entries(VIEWPORTS)) {
    const { context, page } = await newPage(b.browser, viewport);
    await context.addInitScript(RECORD_TOASTS);
    await signIn(page, BASE_URL, admin.email, PASSWORD);
    await open(page, "/admin", page.getByRole("tab", { name: "Utilisateurs" }));
    await walk.check(page, `${label} /admin users`);
    await page.getByLabel("Rechercher un utilisateur...").fill(learner.email);
    const row = page.locator(`[data-testid="user-row"][data-email="${learner.email}"]`);
    await row.waitFor();
    await row.click();
    await walk.check(page, `${label} /admin users (details)`);
    for (const action of ["Éditer", "Accès", "Paiement", "Infos paiement", "Promouvoir"]) {
      await row.getByRole("button", { name: /^Actions pour/ }).click();
      await walk.check(page, `${label} /admin users (actions)`);
      await page.getByRole("menuitem", { name: action, exact: true }).click();
      const dialog = page.getByRole("dialog").or(page.getByRole("alertdialog")).last();
      await dialog.waitFor();
      await page.waitForLoadState("networkidle");
      await walk.check(page, `${label} /admin users (${action} dialog)`);
      if (action === "Accès") {
        await dialog.getByRole("button", { name: /^Afficher le contenu de/ }).first().click();
        await page.waitForLoadState("networkidle");
        await dialog.getByRole("button", { name: "Accorder", exact: true }).first().click();
        await page.waitForTimeout(600);
        await dialog.getByRole("button", { name: "Sélectionner" }).click();
        await walk.check(page, `${label} /admin access dialog (expanded, granted, select mode)`);
        await dialog.getByRole("tab", { name: "Livres" }).click();
        await walk.check(page, `${label} /admin access dialog (books)`);
      }
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" }).catch(() => undefined);
    }
    await page.getByLabel("Rechercher un utilisateur...").fill("zzzz personne");
    await walk.check(page, `${label} /admin users (none found)`);
    for (const tab of ["Accès", "Cours", "Livres", "Sessions"]) {
      await page.getByRole("tab", { name: tab }).click();
      await page.waitForLoadState("networkidle");
      await walk.check(page, `${label} /admin ${tab}`);
    }
    await page.getByRole("tab", { name: "Livres" }).click();
    await page.getByRole("button", { name: "Téléverser le livre" }).click();
    await walk.check(page, `${label} /admin Livres (empty form)`);
    await failing(page, "profiles", async () => {
      await page.reload();
      await page.waitForTimeout(2000);
      await walk.check(page, `${label} /admin (profiles read failed)`);
    });

    // Course screens.
    await open(page, "/admin/courses");
    await walk.check(page, `${label} /admin/courses`);
    const create = page.getByRole("button", { name: /Créer/ }).first();
    if (await create.count()) {
      await create.click();
      await walk.check(page, `${label} /admin/courses (empty form)`);
    }
    for (const path of [`/admin/courses/${state.publicCourse.id}`, `/admin/course/${state.publicCourse.id}`, `/admin/courses/edit/${state.publicCourse.id}`, "/admin/courses/00000000-0000-4000-8000-000000000000"]) {
      await open(page, path);
      await walk.check(page, `${label} ${path}`);
      for (const tab of await page.getByRole("tab").all()) {
        await tab.click();
        await page.waitForLoadState("networkidle");
        await walk.check(page, `${label} ${path} (tab ${await tab.innerText()})`);
      }
    }
    await open(page, "/messages");
    await walk.check(page, `${label} /messages (admin)`);
    await context.close();
  }
  assert.deepEqual(walk.report(), [], `English seen by an admin (${walk.checked} screens)`);
});
