import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, test } from "node:test";
import { BASE_URL, anonKey, axeViolations, newPage, pageAccessToken } from "./support.mjs";
import { launch, signIn } from "./browser.mjs";
import { animationsDone, jpegSize, newAdmin, pdfBytes, pngBytes, publicObject, publicObjectStatus, selectTextFits, sidewaysOverflow, signUp, withinViewport, withToken } from "./admin-support.mjs";

const b = {};
const state = {};

// One admin browser context for the whole file: the account stays within its two devices.
before(async () => {
  b.browser = await launch();
  state.adminAccount = await newAdmin();
  state.admin = await newPage(b.browser);
  state.admin.page.on("response", async (r) => {
    if (r.status() >= 400 && ![406, 409].includes(r.status()) && !/\/storage\/v1\/object\/(public|authenticated)\//.test(r.url())) console.log("[admin]", r.request().method(), r.status(), r.url(), (await r.text().catch(() => "")).slice(0, 300));
  });
  await signIn(state.admin.page, BASE_URL, state.adminAccount.email, state.adminAccount.password);
  state.key = await anonKey();
  state.api = withToken(await pageAccessToken(state.admin.page), state.key);
});
after(async () => {
  await state.admin?.context.close();
  await b.browser?.close();
});

/** Waits for a toast; on a timeout, the error names the toasts that did show. */
async function toast(page, text) {
  try {
    await page.locator("[data-sonner-toast]").filter({ hasText: text }).first().waitFor();
  } catch (error) {
    const shown = await page.locator("[data-sonner-toast]").allInnerTexts();
    throw new Error(`no toast "${text}"; shown: ${JSON.stringify(shown)}`, { cause: error });
  }
}

/**
 * A learner without access to a private course but granted one of its lessons: both course pages
 * list that lesson only, the viewer opens it and downloads its file, the contact path stays.
 */
async function learnerSeesGrantedLesson(page, course, api) {
  const [granted] = await api.rest(`course_content?course_id=eq.${course.id}&select=id,title`);
  await page.goto(`${BASE_URL}/course/${course.id}`);
  await page.getByText("Ce cours est payant").waitFor();
  await page.getByTestId("granted-lessons").filter({ hasText: "Vous avez 1 leçon débloquée dans ce cours." }).waitFor();
  const carousel = page.getByRole("group", { name: "Leçons du cours" });
  // The button is numbered by the lesson's place in the course, not in the learner's list.
  await carousel.getByRole("button", { name: `: ${granted.title}`, exact: false }).waitFor();
  assert.equal(await carousel.getByRole("button", { name: /^Leçon \d+ :/ }).count(), 1);
  await page.getByRole("button", { name: "Accéder au cours" }).click();
  const contact = page.getByRole("dialog", { name: `Accéder à « ${course.title} »` });
  await contact.waitFor();
  await contact.getByRole("button", { name: "Fermer" }).first().click();
  await contact.waitFor({ state: "hidden" });
  await carousel.getByRole("button", { name: `: ${granted.title}`, exact: false }).click();
  await page.getByRole("link", { name: "Ouvrir la leçon" }).click();
  await page.waitForURL(`**/video/${granted.id}`);
  await page.getByRole("heading", { name: granted.title, level: 1 }).waitFor();
  await page.getByText("Sommaire · 1 leçon").waitFor();
  const [file] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Télécharger" }).first().click()]);
  assert.ok(await file.path(), "the granted lesson's file was downloaded");
  assert.deepEqual(await axeViolations(page), []);

  await page.goto(`${BASE_URL}/cours-detail/${course.id}`);
  await page.getByTestId("granted-lessons").filter({ hasText: "Vous avez 1 leçon débloquée dans ce cours." }).waitFor();
  const items = page.locator("main ol > li");
  assert.equal(await items.count(), 1);
  await items.getByText(granted.title).waitFor();
  await page.getByRole("button", { name: "Accéder au cours" }).click();
  await page.getByRole("dialog", { name: `Accéder à « ${course.title} »` }).waitFor();
  await page.keyboard.press("Escape");

  // The other lessons stay locked in the viewer.
  const all = await state.api.rest(`course_content?course_id=eq.${course.id}&select=id`);
  const locked = all.find((l) => l.id !== granted.id);
  await page.goto(`${BASE_URL}/video/${locked.id}`);
  await page.getByRole("alert").filter({ hasText: "Vous n'avez pas accès à ce contenu" }).first().waitFor();
}

async function findUser(page, email) {
  await page.goto(`${BASE_URL}/admin`);
  await page.getByRole("tab", { name: "Utilisateurs" }).waitFor();
  await page.getByLabel("Rechercher un utilisateur...").fill(email);
  const row = page.locator(`[data-testid="user-row"][data-email="${email}"]`);
  await row.waitFor();
  return row;
}

async function userAction(page, row, action) {
  await row.getByRole("button", { name: /^Actions pour/ }).click();
  await page.getByRole("menuitem", { name: action, exact: true }).click();
}

test("visitors and learners are kept out of the back-office", async () => {
  const visitor = await newPage(b.browser);
  await visitor.page.goto(`${BASE_URL}/admin`);
  await visitor.page.waitForURL(`${BASE_URL}/connexion`);
  await visitor.page.goto(`${BASE_URL}/admin/courses`);
  await visitor.page.waitForURL(`${BASE_URL}/connexion`);

  const learner = await signUp("refused", { full_name: "Élève Refusé" });
  await signIn(visitor.page, BASE_URL, learner.email, learner.password);
  await visitor.page.goto(`${BASE_URL}/admin/courses`);
  await toast(visitor.page, "Accès refusé");
  await visitor.page.waitForURL(`${BASE_URL}/`);
  await visitor.page.getByRole("button", { name: "Déconnexion" }).first().click();
  await visitor.context.close();
});

test("an admin finds a learner, edits them, marks them paid and manages their access", async () => {
  const { page } = state.admin;
  const learner = await signUp("acces", { full_name: "Fatou Ndiaye", country: "Sénégal", whatsapp_number: "+221 77 000 11 22" });
  const row = await findUser(page, learner.email);
  assert.deepEqual(await axeViolations(page), []);

  // WhatsApp link with the number's digits; the row toggles its details panel.
  assert.equal(await row.getByRole("link", { name: /WhatsApp/ }).getAttribute("href"), "https://wa.me/221770001122");
  await row.getByRole("button", { name: "Fatou Ndiaye", exact: true }).click();
  await page.getByTestId("user-details").getByText("Informations personnelles").waitFor();
  await row.getByRole("button", { name: "Fatou Ndiaye", exact: true }).click();
  await page.getByTestId("user-details").waitFor({ state: "detached" });

  // Edit: trimmed fields, empty -> null.
  await userAction(page, row, "Éditer");
  await page.getByLabel("Pays").fill("  Bénin  ");
  await page.getByLabel("Numéro WhatsApp").fill("   ");
  await page.getByLabel("Agent").click();
  await page.getByRole("button", { name: "Enregistrer" }).click();
  await toast(page, "Le profil de l'utilisateur a été mis à jour.");
  await row.getByText("Agent", { exact: true }).waitFor();
  const [edited] = await state.api.rest(`profiles?id=eq.${learner.id}&select=country,whatsapp_number,agent`);
  assert.deepEqual(edited, { country: "Bénin", whatsapp_number: null, agent: true });

  // Payment with an expiry in 5 days: active, and the 7-day warning.
  await userAction(page, row, "Paiement");
  await page.getByLabel("Payé", { exact: true }).click();
  const day = (offset) => new Date(Date.now() + offset * 86_400_000).toLocaleDateString("sv-SE");
  await page.getByLabel("Date de paiement").fill(day(0));
  await page.getByLabel("Date d'expiration").fill(day(5));
  await page.getByTestId("payment-status").filter({ hasText: "Abonnement actif" }).waitFor();
  await page.getByText("L'abonnement expire bientôt !").waitFor();
  assert.deepEqual(await axeViolations(page), []);
  await page.getByRole("button", { name: "Enregistrer le paiement" }).click();
  await toast(page, "Le paiement a été mis à jour.");
  await row.getByTestId("user-status").filter({ hasText: "Abonnement actif" }).waitFor();
  const [paid] = await state.api.rest(`profiles?id=eq.${learner.id}&select=paid,expire_date`);
  assert.equal(paid.paid, true);
  assert.ok(new Date(paid.expire_date) > new Date());

  // Access: a private course, and one lesson of another course.
  const courses = await state.api.rest("courses?select=id,title");
  const toeic = courses.find((c) => c.title === "Préparation au TOEIC");
  const business = courses.find((c) => c.title === "Anglais des affaires");
  await userAction(page, row, "Accès");
  const dialog = page.getByRole("dialog", { name: "Gestion d'accès pour Fatou Ndiaye" });
  await dialog.getByText("Gérer l'accès aux cours et contenus spécifiques").waitFor();
  await dialog.getByTestId("access-course-count").filter({ hasText: "0 cours" }).waitFor();
  const toeicRow = dialog.locator('[data-testid="access-course"][data-title="Préparation au TOEIC"]');
  await toeicRow.getByRole("button", { name: "Accorder" }).click();
  await toast(page, "L'accès au cours « Préparation au TOEIC » a été accordé.");
  await toeicRow.getByText("Accessible", { exact: true }).waitFor();
  await dialog.getByTestId("access-course-count").filter({ hasText: "1 cours" }).waitFor();
  await dialog.getByRole("button", { name: "Afficher le contenu de Anglais des affaires" }).click();
  const lesson = dialog.locator('[data-testid="access-content"][data-title="Écrire un e-mail professionnel"]');
  await lesson.waitFor();
  await lesson.getByRole("button", { name: "Accorder l'accès à Écrire un e-mail professionnel" }).click();
  await lesson.getByText("Accessible", { exact: true }).waitFor();
  assert.deepEqual(await axeViolations(page), []);

  // The learner's own browser now sees the private course and that one lesson.
  const learnerPage = await newPage(b.browser, { width: 375, height: 812 });
  await signIn(learnerPage.page, BASE_URL, learner.email, learner.password);
  await learnerPage.page.goto(`${BASE_URL}/course/${toeic.id}`);
  await learnerPage.page.getByTestId("progress-text").waitFor();
  const learnerApi = withToken(await pageAccessToken(learnerPage.page), state.key);
  const visible = await learnerApi.rest(`course_content?course_id=eq.${business.id}&select=title`);
  assert.deepEqual(visible.map((c) => c.title), ["Écrire un e-mail professionnel"]);
  await learnerSeesGrantedLesson(learnerPage.page, business, learnerApi);

  // Bulk grant of a granted lesson and a new one: the duplicate is ignored.
  const other = dialog.locator('[data-testid="access-content"][data-title="Le vocabulaire du bureau"]');
  await dialog.getByRole("button", { name: "Sélectionner" }).click();
  assert.equal(await dialog.getByRole("button", { name: "Accorder l'accès (0)" }).isDisabled(), true);
  await lesson.getByRole("checkbox", { name: "Sélectionner Écrire un e-mail professionnel" }).click();
  await other.getByRole("checkbox", { name: "Sélectionner Le vocabulaire du bureau" }).click();
  await dialog.getByRole("button", { name: "Accorder l'accès (2)" }).click();
  const grant = page.getByRole("alertdialog", { name: "Confirmer l'accès au contenu" });
  await grant.getByText("Voulez-vous vraiment accorder l'accès à 2 éléments sélectionnés pour Fatou Ndiaye ?").waitFor();
  await grant.getByRole("button", { name: "Confirmer l'accès" }).click();
  await toast(page, "Accès accordé à 2 éléments.");
  await other.getByText("Accessible", { exact: true }).waitFor();

  // Bulk revoke: select the course and both lessons, confirm.
  await dialog.getByRole("button", { name: "Sélectionner" }).click();
  await toeicRow.getByRole("checkbox", { name: "Sélectionner Préparation au TOEIC" }).click();
  await lesson.getByRole("checkbox", { name: "Sélectionner Écrire un e-mail professionnel" }).click();
  await other.getByRole("checkbox", { name: "Sélectionner Le vocabulaire du bureau" }).click();
  await dialog.getByRole("button", { name: "Révoquer l'accès (3)" }).click();
  const confirm = page.getByRole("alertdialog", { name: "Confirmer la révocation d'accès" });
  await confirm.getByText("Voulez-vous vraiment révoquer l'accès à 3 éléments sélectionnés pour Fatou Ndiaye ?").waitFor();
  await confirm.getByRole("button", { name: "Confirmer la révocation" }).click();
  await toast(page, "Accès révoqué pour 3 éléments.");
  await dialog.getByTestId("access-course-count").filter({ hasText: "0 cours" }).waitFor();
  await dialog.getByRole("button", { name: "Sélectionner" }).waitFor();
  assert.equal(await dialog.getByText("Accessible", { exact: true }).count(), 0);
  assert.deepEqual(await learnerApi.rest(`course_content?course_id=eq.${business.id}&select=title`), []);
  assert.equal(await learnerApi.rpc("user_has_course_access", { user_id: learner.id, course_id: toeic.id }), false);
  await page.keyboard.press("Escape");

  await learnerPage.page.goto(`${BASE_URL}/compte`);
  await learnerPage.page.getByRole("button", { name: "Déconnexion" }).last().click();
  await learnerPage.context.close();
});

test("an admin creates a course with a cover, adds a PDF lesson and a video, sets its schedule and deletes it", async () => {
  const { page } = state.admin;
  await page.goto(`${BASE_URL}/admin/courses`);
  await page.getByRole("heading", { name: "Créer un cours" }).waitFor();
  const title = `Cours E2E ${Date.now()}`;

  await page.getByRole("button", { name: "Créer le cours" }).click();
  await page.getByText("Le titre doit contenir au moins 3 caractères").waitFor();
  await page.getByLabel("Titre", { exact: true }).fill(title);
  await page.getByLabel("Description (optionnelle)").fill("Un cours créé par le test.");
  await page.getByLabel("Visibilité").selectOption("private");
  await page.getByLabel("Image de couverture (optionnelle)").setInputFiles({ name: "grande couverture.png", mimeType: "image/png", buffer: await pngBytes(page, 1200, 675) });
  await page.getByRole("button", { name: "Créer le cours" }).click();
  await toast(page, "Cours créé");
  const card = page.locator(`[data-testid="admin-course-card"][data-title="${title}"]`);
  await card.getByText("Privé").waitFor();
  assert.deepEqual(await axeViolations(page), []);

  // The cover was resized in the browser: a 300 px wide JPEG in the public covers bucket.
  const [course] = await state.api.rest(`courses?title=eq.${encodeURIComponent(title)}&select=id,cover_url,visibility`);
  assert.equal(course.visibility, "private");
  assert.match(course.cover_url, /^courses\/.+\.jpg$/);
  assert.deepEqual(jpegSize(await publicObject("covers", course.cover_url)), { width: 300, height: 169 });

  // Content: a PDF by file (type and title from the file), then a video embed.
  await card.getByRole("link", { name: `Éditer ${title}` }).click();
  await page.getByRole("heading", { name: title }).waitFor();
  await page.getByLabel("Fichier", { exact: true }).setInputFiles({ name: "verbes irreguliers.pdf", mimeType: "application/pdf", buffer: pdfBytes("verbes") });
  assert.equal(await page.getByLabel("Titre du contenu").inputValue(), "verbes irreguliers");
  assert.equal(await page.getByLabel("Type de fichier").inputValue(), "document");
  await page.getByRole("button", { name: "Ajouter le contenu" }).click();
  await page.getByTestId("upload-progress").waitFor();
  await toast(page, "Contenu ajouté");
  await page.locator('[data-testid="content-item"][data-title="verbes irreguliers"]').waitFor();

  await page.getByLabel("Vidéo intégrée (embed)").check();
  await page.getByLabel("Titre du contenu").fill("Présentation en vidéo");
  // Only the delivery host and the video site are framed (lesson-content.test.mjs converts the latter's links).
  await page.getByLabel(/URL ou code embed/).fill("https://vimeo.com/76979871");
  await page.getByRole("button", { name: "Ajouter le contenu" }).click();
  await page.getByText("Veuillez entrer une URL ou un code embed iframe.mediadelivery.net ou YouTube valide").waitFor();
  await page.getByLabel(/URL ou code embed/).fill('<iframe src="https://iframe.mediadelivery.net/embed/99/e2e-video" allowfullscreen></iframe>');
  await page.getByRole("button", { name: "Ajouter le contenu" }).click();
  await page.locator('[data-testid="content-item"][data-title="Présentation en vidéo"]').waitFor();
  await page.getByLabel("Téléverser un fichier").check();
  await page.getByLabel("Fichier", { exact: true }).setInputFiles({ name: "annexe.pdf", mimeType: "application/pdf", buffer: pdfBytes("annexe") });
  assert.equal(await page.getByLabel("Titre du contenu").inputValue(), "annexe");
  await page.getByRole("button", { name: "Ajouter le contenu" }).click();
  await page.locator('[data-testid="content-item"][data-title="annexe"]').waitFor();
  assert.deepEqual(await page.getByTestId("content-item").evaluateAll((els) => els.map((e) => e.dataset.title)), ["verbes irreguliers", "Présentation en vidéo", "annexe"]);
  assert.deepEqual(await axeViolations(page), []);
  const content = await state.api.rest(`course_content?course_id=eq.${course.id}&select=title,file_type,file_path,video_embed_url,order_index&order=order_index`);
  assert.equal(content[0].file_type, "document");
  assert.match(content[0].file_path, new RegExp(`^${course.id}/\\d+_verbes_irreguliers\\.pdf$`));
  assert.equal(content[1].file_path, null);
  assert.match(content[1].video_embed_url, /^https:\/\/iframe\.mediadelivery\.net\/embed\/99\/e2e-video\?autoplay=false/);
  assert.equal(await state.api.objectStatus("course-content", content[0].file_path), 200);

  // Unlock schedule: created, then updated; the preview follows the values.
  await page.getByRole("tab", { name: "Déblocage" }).click();
  await page.getByLabel("Intervalle de déblocage (jours)").fill("3");
  await page.getByLabel("Leçons par déblocage").fill("1");
  await page.getByLabel("Délai avant le premier déblocage (jours)").fill("0");
  await page.getByLabel("Accès accordé il y a (jours)").fill("3");
  await page.getByTestId("schedule-preview").filter({ hasText: "2 leçons débloquées sur 3" }).waitFor();
  await page.getByRole("button", { name: "Créer le programme" }).click();
  await toast(page, "Programme de déblocage enregistré");
  // 0 / 0 / -1: a French message per field, nothing saved.
  await page.getByLabel("Intervalle de déblocage (jours)").fill("0");
  await page.getByLabel("Leçons par déblocage").fill("0");
  await page.getByLabel("Délai avant le premier déblocage (jours)").fill("-1");
  await page.getByRole("button", { name: "Mettre à jour le programme" }).click();
  await page.getByText("L'intervalle doit être d'au moins 1 jour.").waitFor();
  await page.getByText("Il faut débloquer au moins 1 leçon à la fois.").waitFor();
  await page.getByText("Le délai ne peut pas être négatif.").waitFor();
  await page.getByTestId("schedule-preview").filter({ hasText: "Corrigez les valeurs pour voir l'aperçu." }).waitFor();
  assert.deepEqual(await state.api.rest(`course_unlock_schedules?course_id=eq.${course.id}&select=unlock_interval_days,lessons_per_unlock,start_delay_days`),
    [{ unlock_interval_days: 3, lessons_per_unlock: 1, start_delay_days: 0 }]);
  await page.getByLabel("Intervalle de déblocage (jours)").fill("4");
  await page.getByLabel("Leçons par déblocage").fill("1");
  await page.getByLabel("Délai avant le premier déblocage (jours)").fill("0");
  await page.getByRole("button", { name: "Mettre à jour le programme" }).click();
  await toast(page, "1 leçon tous les 4 jours.");
  const schedules = await state.api.rest(`course_unlock_schedules?course_id=eq.${course.id}&select=unlock_interval_days,lessons_per_unlock,start_delay_days,is_active`);
  assert.deepEqual(schedules, [{ unlock_interval_days: 4, lessons_per_unlock: 1, start_delay_days: 0, is_active: true }]);
  assert.deepEqual(await axeViolations(page), []);

  // Course detail: edit a lesson's title and description, delete the PDF lesson and its file.
  await page.goto(`${BASE_URL}/admin/courses/${course.id}`);
  const edit = page.getByTestId("content-edit").nth(1);
  await edit.getByLabel("Titre de Présentation en vidéo").fill("Présentation (vidéo)");
  await edit.getByLabel("Description de Présentation en vidéo").fill("À regarder en premier.");
  await edit.getByRole("button", { name: "Enregistrer" }).click();
  await toast(page, "Le contenu a été mis à jour.");
  await page.locator('[data-testid="content-item"][data-title="Présentation (vidéo)"]').getByText("À regarder en premier.").waitFor();
  const pdfItem = page.locator('[data-testid="content-item"][data-title="verbes irreguliers"]');
  await pdfItem.getByRole("button", { name: "Menu de verbes irreguliers" }).click();
  await page.getByRole("menuitem", { name: "Supprimer" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Supprimer" }).click();
  await toast(page, "Contenu supprimé avec succès");
  await pdfItem.waitFor({ state: "detached" });
  assert.ok((await state.api.objectStatus("course-content", content[0].file_path)) >= 400);
  assert.deepEqual(await axeViolations(page), []);

  // Delete with confirmation: the row and its cover go.
  await page.goto(`${BASE_URL}/admin/courses`);
  await card.getByRole("button", { name: `Supprimer ${title}` }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Supprimer" }).click();
  await toast(page, "Cours supprimé");
  await card.waitFor({ state: "detached" });
  assert.deepEqual(await state.api.rest(`courses?id=eq.${course.id}&select=id`), []);
  assert.deepEqual(await state.api.rest(`course_content?course_id=eq.${course.id}&select=id`), []);
  assert.ok((await state.api.objectStatus("course-content", content[2].file_path)) >= 400);
  assert.ok((await publicObjectStatus("covers", course.cover_url)) >= 400);
});

test("an admin uploads a book with a cover and deletes it with its files", async () => {
  const { page } = state.admin;
  await page.goto(`${BASE_URL}/admin`);
  await page.getByRole("tab", { name: "Livres" }).click();
  const title = `Livre E2E ${Date.now()}`;
  await page.getByRole("button", { name: "Téléverser le livre" }).click();
  await page.getByText("Le titre est obligatoire").waitFor();
  await page.getByText("Veuillez sélectionner un fichier PDF").waitFor();
  await page.getByLabel("Titre", { exact: true }).fill(title);
  await page.getByLabel("Nombre de pages").fill("12");
  await page.getByLabel("Fichier PDF").setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("texte") });
  await page.getByRole("button", { name: "Téléverser le livre" }).click();
  await page.getByText("Seuls les fichiers PDF sont acceptés").waitFor();
  await page.getByLabel("Fichier PDF").setInputFiles({ name: "mon livre.pdf", mimeType: "application/pdf", buffer: pdfBytes(title) });
  await page.getByLabel("Couverture (optionnelle)").setInputFiles({ name: "couverture.png", mimeType: "image/png", buffer: await pngBytes(page, 600, 800) });
  await page.getByRole("button", { name: "Téléverser le livre" }).click();
  await toast(page, "Livre téléchargé");
  const item = page.locator(`[data-testid="admin-book"][data-title="${title}"]`);
  await item.waitFor();
  assert.deepEqual(await axeViolations(page), []);

  const [book] = await state.api.rest(`books?title=eq.${encodeURIComponent(title)}&select=id,pages,file_path,cover_url`);
  assert.equal(book.pages, 12);
  assert.match(book.file_path, /^\d+_mon_livre\.pdf$/);
  assert.equal(await state.api.objectStatus("books", book.file_path), 200);
  assert.deepEqual(jpegSize(await publicObject("covers", book.cover_url)), { width: 300, height: 400 });

  await item.getByRole("button", { name: `Supprimer ${title}` }).click();
  const confirm = page.getByRole("alertdialog", { name: "Êtes-vous sûr ?" });
  await confirm.getByText("Cette action supprimera définitivement ce livre et ne peut pas être annulée.").waitFor();
  await confirm.getByRole("button", { name: "Supprimer" }).click();
  await toast(page, "Livre supprimé");
  await item.waitFor({ state: "detached" });
  assert.deepEqual(await state.api.rest(`books?id=eq.${book.id}&select=id`), []);
  assert.ok((await state.api.objectStatus("books", book.file_path)) >= 400);
  assert.ok((await publicObjectStatus("covers", book.cover_url)) >= 400);
});

test("an admin deletes a book from the library: its cover is removed from the covers bucket, its PDF from books", async () => {
  const { page } = state.admin;
  const headers = { apikey: state.key, authorization: `Bearer ${await pageAccessToken(page)}` };
  const stamp = Date.now();
  const title = `Livre bibliothèque ${stamp}`;
  const pdf = `${stamp}_bibliotheque.pdf`;
  const cover = `books/${stamp}_bibliotheque.png`;
  const put = async (bucket, name, type, body) => {
    const res = await fetch(`${BASE_URL}/storage/v1/object/${bucket}/${name}`, { method: "POST", headers: { ...headers, "content-type": type }, body });
    assert.equal(res.status, 200, `${bucket}/${name}: ${await res.text()}`);
  };
  await put("books", pdf, "application/pdf", pdfBytes(title));
  await put("covers", cover, "image/png", await pngBytes(page, 60, 80));
  const made = await fetch(`${BASE_URL}/rest/v1/books`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json", prefer: "return=representation" },
    body: JSON.stringify({ title, pages: 3, file_path: pdf, cover_url: cover }),
  });
  assert.equal(made.status, 201, await made.text());
  assert.equal(await publicObjectStatus("covers", cover), 200);

  // The storage removals the page asks for, with what each answered it removed.
  const removals = [];
  const onResponse = async (r) => {
    const match = /\/storage\/v1\/object\/([^/?]+)$/.exec(r.url());
    if (match && r.request().method() === "DELETE") removals.push({ bucket: match[1], asked: JSON.parse(r.request().postData()).prefixes, removed: (await r.json().catch(() => [])).map((o) => o.name) });
  };
  page.on("response", onResponse);
  await page.goto(`${BASE_URL}/livres`);
  await page.getByRole("button", { name: `Supprimer ${title}` }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Supprimer" }).click();
  await toast(page, "Livre supprimé");
  await page.getByRole("button", { name: `Supprimer ${title}` }).waitFor({ state: "detached" });
  page.off("response", onResponse);

  assert.deepEqual(await state.api.rest(`books?title=eq.${encodeURIComponent(title)}&select=id`), []);
  assert.deepEqual(removals, [
    { bucket: "books", asked: [pdf], removed: [pdf] },
    { bucket: "covers", asked: [cover], removed: [cover] },
  ]);
  assert.ok((await publicObjectStatus("covers", cover)) >= 400);
  assert.ok((await state.api.objectStatus("books", pdf)) >= 400);
});

test("an admin promotes and demotes a user", async () => {
  const { page } = state.admin;
  const user = await signUp("promu", { full_name: "Koffi Mensah" });
  const row = await findUser(page, user.email);
  await userAction(page, row, "Promouvoir");
  await page.getByRole("alertdialog").getByRole("button", { name: "Promouvoir" }).click();
  await toast(page, "Koffi Mensah est maintenant administrateur.");
  await row.getByText("Admin", { exact: true }).waitFor();
  assert.deepEqual(await state.api.rest(`profiles?id=eq.${user.id}&select=role`), [{ role: "admin" }]);

  await userAction(page, row, "Rétrograder");
  await page.getByRole("alertdialog").getByRole("button", { name: "Rétrograder" }).click();
  await toast(page, "Koffi Mensah n'est plus administrateur.");
  await row.getByText("Admin", { exact: true }).waitFor({ state: "detached" });
  assert.deepEqual(await state.api.rest(`profiles?id=eq.${user.id}&select=role`), [{ role: "user" }]);
});

test("an admin terminates a learner's session and that browser is signed out", async () => {
  const { page } = state.admin;
  const user = await signUp("session", { full_name: "Mariam Traoré" });
  const learner = await newPage(b.browser);
  await signIn(learner.page, BASE_URL, user.email, user.password);

  await page.goto(`${BASE_URL}/admin`);
  await page.getByRole("tab", { name: "Sessions" }).click();
  const session = page.locator(`[data-testid="admin-session"][data-email="${user.email}"]`);
  await session.getByText("Mariam Traoré").waitFor();
  assert.deepEqual(await axeViolations(page), []);
  await session.getByRole("button", { name: "Terminer" }).click();
  await toast(page, "Session terminée");
  await session.waitFor({ state: "detached" });

  await learner.page.getByText("Votre session a été terminée par un administrateur.").waitFor({ timeout: 45_000 });
  await learner.page.getByRole("link", { name: "Connexion" }).first().waitFor();
  await learner.context.close();
});

test("every admin screen and dialog fits a phone (375 px) and passes axe", async () => {
  const phone = await newPage(b.browser, { width: 375, height: 812 });
  const { page } = phone;
  const learner = await signUp("mobile", { full_name: "Aminata Coulibaly-Ouédraogo", whatsapp_number: "+223 70 00 00 00" });
  await signIn(page, BASE_URL, state.adminAccount.email, state.adminAccount.password);
  const fits = async (where) => assert.deepEqual(await sidewaysOverflow(page), { document: 0, dialog: 0, table: 0 }, `${where} scrolls sideways`);
  const axeClean = async (where) => {
    await animationsDone(page);
    assert.deepEqual(await axeViolations(page), [], where);
  };
  const visible = async (where, locator) => assert.deepEqual(await withinViewport(page, locator), [], `${where}: cut by the screen's edge`);

  // The tabs hold on one row, the filters show their whole text, the row's actions are on screen.
  const row = await findUser(page, learner.email);
  const tabs = page.getByTestId("admin-tabs").getByRole("tab");
  await visible("tabs", tabs);
  assert.equal(new Set(await tabs.evaluateAll((els) => els.map((el) => Math.round(el.getBoundingClientRect().top)))).size, 1, "the tabs wrap");
  for (const name of ["Filtrer par paiement", "Filtrer par rôle"]) assert.ok(await selectTextFits(page.getByLabel(name)), `${name} is cut`);
  await visible("user row", row.getByRole("button", { name: /^Actions pour/ }));
  await visible("user row", row.getByRole("link", { name: /WhatsApp/ }));
  await visible("user row", row.getByTestId("user-status"));
  await fits("users tab");
  await axeClean("users tab");
  await row.getByRole("button", { name: learner.name, exact: true }).click();
  await page.getByTestId("user-details").waitFor();
  await fits("user details");

  // Each dialog of the row's menu, with its buttons on screen.
  for (const [action, buttons] of [["Éditer", ["Enregistrer", "Annuler"]], ["Paiement", ["Enregistrer le paiement", "Annuler"]], ["Infos paiement", ["Fermer"]], ["Promouvoir", ["Promouvoir", "Annuler"]]]) {
    await userAction(page, row, action);
    const dialog = page.getByRole(action === "Promouvoir" ? "alertdialog" : "dialog");
    await dialog.waitFor();
    for (const name of buttons) await visible(action, dialog.getByRole("button", { name, exact: true }));
    await fits(`dialog ${action}`);
    await axeClean(action);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
  }

  // The access dialog: title, grant/revoke buttons, select mode and its confirmation.
  await userAction(page, row, "Accès");
  const dialog = page.getByRole("dialog", { name: `Gestion d'accès pour ${learner.name}` });
  await dialog.getByTestId("access-course").first().waitFor();
  await visible("access dialog title", dialog.getByRole("heading"));
  await visible("access dialog", dialog.getByTestId("access-course").getByRole("button", { name: "Accorder", exact: true }));
  await dialog.getByRole("button", { name: "Afficher le contenu de Anglais des affaires" }).click();
  await dialog.getByTestId("access-content").first().waitFor();
  await visible("access dialog lessons", dialog.getByTestId("access-content").getByRole("button", { name: /^Accorder l'accès à/ }));
  await fits("access dialog");
  await dialog.getByRole("button", { name: "Sélectionner" }).click();
  for (const name of ["Tout sélectionner", "Tout désélectionner", "Accorder l'accès (0)", "Révoquer l'accès (0)", "Annuler"]) await visible("select mode", dialog.getByRole("button", { name, exact: true }));
  await dialog.getByRole("checkbox", { name: "Sélectionner Le vocabulaire du bureau" }).click();
  await fits("access dialog in select mode");
  await axeClean("access dialog in select mode");
  await dialog.getByRole("button", { name: "Accorder l'accès (1)" }).click();
  const confirm = page.getByRole("alertdialog", { name: "Confirmer l'accès au contenu" });
  for (const name of ["Annuler", "Confirmer l'accès"]) await visible("confirmation", confirm.getByRole("button", { name, exact: true }));
  await fits("access confirmation");
  await confirm.getByRole("button", { name: "Annuler" }).click();
  await dialog.getByRole("tab", { name: "Livres" }).click();
  await visible("access dialog books", dialog.getByTestId("access-book").getByRole("button", { name: "Accorder", exact: true }));
  await fits("access dialog, books");
  await visible("access dialog", dialog.getByRole("button", { name: "Fermer" }));
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "hidden" });

  for (const tab of ["Accès", "Cours", "Livres", "Sessions"]) {
    await page.getByRole("tab", { name: tab }).click();
    await page.getByRole("tabpanel", { name: tab }).waitFor();
    await fits(`tab ${tab}`);
  }
  await axeClean("admin tabs");

  // The course pages.
  const [course] = await state.api.rest(`courses?title=eq.${encodeURIComponent("Les bases de l'anglais")}&select=id`);
  await page.goto(`${BASE_URL}/admin/courses`);
  await page.getByTestId("admin-course-card").first().waitFor();
  await fits("/admin/courses");
  await axeClean("/admin/courses");
  await page.goto(`${BASE_URL}/admin/course/${course.id}`);
  await page.getByTestId("content-item").first().waitFor();
  await fits("course page, content");
  for (const tab of ["Déblocage", "Paramètres"]) {
    await page.getByRole("tab", { name: tab }).click();
    await page.getByRole("tabpanel", { name: tab }).waitFor();
    await fits(`course page, ${tab}`);
  }
  await page.goto(`${BASE_URL}/admin/courses/${course.id}`);
  await page.getByTestId("content-edit").first().waitFor();
  await fits("course detail");
  await page.goto(`${BASE_URL}/admin/courses/edit/${course.id}`);
  await page.getByLabel("Titre", { exact: true }).waitFor();
  await fits("legacy edit page");

  await page.goto(`${BASE_URL}/compte`);
  await page.getByRole("button", { name: "Déconnexion" }).last().click();
  await phone.context.close();
});

test("the content form's file type follows the file chosen last", async () => {
  const { page } = state.admin;
  const [course] = await state.api.rest(`courses?title=eq.${encodeURIComponent("Les bases de l'anglais")}&select=id`);
  await page.goto(`${BASE_URL}/admin/course/${course.id}`);
  const file = page.getByLabel("Fichier", { exact: true });
  // The picker speaks French whatever the browser's language, and names the chosen file.
  const picker = page.locator('[data-slot="file-input"]');
  await picker.getByText("Choisir un fichier").waitFor();
  await picker.getByText("Aucun fichier", { exact: true }).waitFor();
  await file.setInputFiles({ name: "schéma.png", mimeType: "image/png", buffer: await pngBytes(page, 20, 20) });
  await picker.getByText("schéma.png").waitFor();
  assert.equal(await page.getByLabel("Type de fichier").inputValue(), "image");
  assert.equal(await page.getByLabel("Titre du contenu").inputValue(), "schéma");
  await file.setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("notes") });
  assert.equal(await page.getByLabel("Type de fichier").inputValue(), "", "the type of the previous file stays");
  assert.equal(await page.getByLabel("Titre du contenu").inputValue(), "notes");
  await page.getByRole("button", { name: "Ajouter le contenu" }).click();
  await page.getByText("Veuillez sélectionner un type de fichier").waitFor();
  await file.setInputFiles({ name: "cours.pdf", mimeType: "application/pdf", buffer: pdfBytes("cours") });
  assert.equal(await page.getByLabel("Type de fichier").inputValue(), "document");
});

test("'Télécharger' in an admin course saves the file and stays on the page", async () => {
  const { page } = state.admin;
  const [course] = await state.api.rest(`courses?title=eq.${encodeURIComponent("Les bases de l'anglais")}&select=id`);
  await page.goto(`${BASE_URL}/admin/course/${course.id}`);
  const here = page.url();
  for (const [title, saved] of [["Les couleurs", "Les couleurs.png"], ["Fiche : les nombres", "Fiche - les nombres.pdf"]]) {
    const item = page.locator(`[data-testid="content-item"][data-title="${title}"]`);
    const [file] = await Promise.all([page.waitForEvent("download"), item.getByRole("button", { name: "Télécharger" }).click()]);
    assert.equal(file.suggestedFilename(), saved);
    assert.ok((await readFile(await file.path())).length > 0);
    await toast(page, "Téléchargement terminé");
    assert.equal(page.url(), here);
    await item.waitFor();
  }
});
