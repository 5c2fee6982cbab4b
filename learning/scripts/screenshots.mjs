// make screenshots: every screen at 375 px and 1280 px wide, against a seeded server; the
// admin screens are also checked with axe-core (serious or critical violations fail).
// Starts `supalite serve --seed` on the learning site with a scratch data dir (or uses
// SUPALITE_URL), writes PNGs to learning/web/screenshots/<width>/ and reports any horizontal
// scrolling at 375 px.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, chmodSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

// The app (learning/, the server's project dir) and the repository holding .venv.
const app = resolve(new URL("..", import.meta.url).pathname);
const repo = resolve(app, "..");
const { launch, signIn, horizontalOverflow, VIEWPORTS, DEMO } = await import(join(app, "web/e2e/browser.mjs"));
const { uploadScreens } = await import(join(app, "web/e2e/upload-screens.mjs"));
const outDir = join(app, "web/screenshots");
// axe-core checks every admin screen: serious or critical violations are reported.
const AXE_SOURCE = readFileSync(createRequire(join(app, "web/package.json")).resolve("axe-core/axe.min.js"), "utf8");

async function axeProblems(page) {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run({ exclude: [["[data-sonner-toaster]"]] }, { resultTypes: ["violations"] });
    return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes[0]?.target?.join(" ")}`);
  });
}

function freePort() {
  return new Promise((ok) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
  });
}

async function startServer() {
  if (process.env.SUPALITE_URL) return { url: process.env.SUPALITE_URL, stop: () => {} };
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "supalite-shots-"));
  chmodSync(dataDir, 0o755);
  const env = { ...process.env, SUPALITE_DB_PORT: "0", SUPALITE_RATE_LIMITS: "false", SUPALITE_PROJECT_DIR: app, SUPALITE_LOG_LEVEL: "warning", SUPALITE_AUTH_MAX_SESSIONS: "2", SUPALITE_AUTH_SESSIONS_TIMEBOX: "720h", SUPALITE_AUTH_SESSIONS_INACTIVITY_TIMEOUT: "168h",
    SUPALITE_APP_OWNER_EMAIL: "admin@example.com", SUPALITE_APP_CONTACT_ADMIN_EMAIL: "prof@example.com",
    SUPALITE_APP_CONTACT_WHATSAPP: "+33612345678", SUPALITE_APP_CONTACT_EMAIL: "contact@example.com" };
  const child = spawn(join(repo, ".venv/bin/supalite"), ["serve", "--port", String(port), "--data-dir", dataDir, "--seed"], { env, stdio: ["ignore", "inherit", "inherit"] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/health`)).ok) return { url, stop: () => child.kill("SIGTERM") };
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill("SIGTERM");
  throw new Error("server did not become healthy");
}

async function ids(url) {
  const config = await (await fetch(`${url}/config.js`)).text();
  const key = config.match(/"supabaseAnonKey":\s*"([^"]+)"/)[1];
  const token = await (
    await fetch(`${url}/auth/v1/token?grant_type=password`, {
      method: "POST",
      headers: { apikey: key, "content-type": "application/json" },
      body: JSON.stringify(DEMO.learner),
    })
  ).json();
  const headers = { apikey: key, authorization: `Bearer ${token.access_token}` };
  const courses = await (await fetch(`${url}/rest/v1/courses?select=id,title,visibility&order=created_at`, { headers })).json();
  const content = await (await fetch(`${url}/rest/v1/course_content?select=id,course_id,file_type,order_index&order=order_index`, { headers })).json();
  const pub = courses.find((c) => c.visibility === "public");
  const paid = courses.find((c) => c.visibility !== "public" && c.title.includes("TOEIC")) ?? courses.find((c) => c.visibility !== "public");
  // The course whose unlock schedule keeps some of the learner's lessons locked.
  const scheduled = courses.find((c) => c.title.includes("affaires"));
  const video = content.find((c) => c.course_id === pub.id && c.file_type === "video");
  const image = content.find((c) => c.course_id === pub.id && c.file_type === "image");
  // Signing out frees the session this lookup took.
  await fetch(`${url}/auth/v1/logout`, { method: "POST", headers });
  return { pub: pub.id, paid: paid.id, scheduled: scheduled?.id, video: video?.id, image: image?.id };
}

const settle = (page) => page.waitForLoadState("networkidle").catch(() => undefined).then(() => page.waitForTimeout(700));

const server = await startServer();
const browser = await launch();
const problems = [];
try {
  const id = await ids(server.url);
  const visitor = [
    ["01-landing", "/"],
    ["02-connexion", "/connexion"],
    ["03-inscription", "/inscription"],
    ["04-mot-de-passe-oublie", "/mot-de-passe-oublie"],
    ["05-livres-visiteur", "/livres"],
    ["06-cours-visiteur", "/cours"],
    ["07-course-visiteur", `/course/${id.pub}`],
    ["08-contact", "/contact"],
    ["09-mentions-legales", "/mentions-legales"],
    ["10-politique-confidentialite", "/politique-confidentialite"],
    ["11-404", "/page-inexistante"],
  ];
  const learner = [
    ["20-accueil-connecte", "/"],
    ["21-livres", "/livres"],
    ["23-cours", "/cours"],
    ["24-course-apprenant", `/course/${id.pub}`],
    ["26-course-payant", `/course/${id.paid}`],
    ...(id.scheduled ? [["26c-course-programme", `/course/${id.scheduled}`]] : []),
    ["27-cours-detail", `/cours-detail/${id.pub}`],
    ["28-video", `/video/${id.video}`],
    ["29-image", `/video/${id.image}`],
    ["30-compte", "/compte"],
    ["32-messages", "/messages"],
  ];
  for (const [vpName, viewport] of Object.entries(VIEWPORTS)) {
    const dir = join(outDir, String(viewport.width));
    mkdirSync(dir, { recursive: true });
    const shoot = async (page, name) => {
      await settle(page);
      await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
      if (vpName === "mobile") {
        const overflow = await horizontalOverflow(page);
        if (overflow > 0) problems.push(`${name}: ${overflow}px of horizontal scrolling at 375 px`);
      }
    };

    const vctx = await browser.newContext({ viewport, locale: "fr-FR" });
    const vpage = await vctx.newPage();
    for (const [name, path] of visitor) {
      await vpage.goto(`${server.url}${path}`);
      await shoot(vpage, name);
    }
    await vpage.goto(`${server.url}/inscription`);
    await vpage.getByRole("button", { name: "S'inscrire" }).click();
    await shoot(vpage, "03b-inscription-erreurs");
    if (vpName === "mobile") {
      await vpage.goto(`${server.url}/`);
      await vpage.getByRole("button", { name: "Ouvrir le menu" }).click();
      await vpage.screenshot({ path: join(dir, "12-menu-mobile.png") });
    }
    await vctx.close();

    const lctx = await browser.newContext({ viewport, locale: "fr-FR" });
    const lpage = await lctx.newPage();
    await signIn(lpage, server.url, DEMO.learner.email, DEMO.learner.password);
    for (const [name, path] of learner) {
      await lpage.goto(`${server.url}${path}`);
      await shoot(lpage, name);
      if (name === "21-livres") {
        await lpage.getByRole("button", { name: /Voir le détail/ }).first().click();
        await lpage.waitForTimeout(400);
        await lpage.screenshot({ path: join(dir, "22-livre-detail.png") });
        await lpage.keyboard.press("Escape");
      }
      if (name === "24-course-apprenant") {
        await lpage.getByRole("button", { name: /^Leçon 1/ }).click();
        await shoot(lpage, "25-course-lecon-ouverte");
      }
      if (name === "26-course-payant") {
        const access = lpage.getByRole("button", { name: "Accéder au cours" });
        if (await access.count()) {
          await access.first().click();
          await lpage.waitForTimeout(400);
          await lpage.screenshot({ path: join(dir, "26b-dialogue-contact.png") });
          await lpage.keyboard.press("Escape");
        }
      }
      if (name === "30-compte") {
        await lpage.getByRole("tab", { name: "Abonnements" }).click();
        await shoot(lpage, "31-compte-abonnements");
      }
    }
    // Signing out ends this device so the next context starts below the device limit.
    await lpage.goto(`${server.url}/compte`);
    await lpage.getByRole("button", { name: /Déconnexion/ }).last().click().catch(() => undefined);
    await lpage.waitForTimeout(500);
    await lctx.close();

    // The back-office, as the demo admin.
    const actx = await browser.newContext({ viewport, locale: "fr-FR" });
    const apage = await actx.newPage();
    await signIn(apage, server.url, DEMO.admin.email, DEMO.admin.password);
    const checked = async (name) => {
      await shoot(apage, name);
      for (const v of await axeProblems(apage)) problems.push(`${name} at ${viewport.width} px: ${v}`);
    };
    const dialogShot = async (name) => {
      await apage.waitForTimeout(500);
      await apage.screenshot({ path: join(dir, `${name}.png`) });
      if (vpName === "mobile") {
        // A dialog scrolling sideways inside an unmoving page counts too.
        const overflow = await apage.evaluate(() => Math.max(0, ...[...document.querySelectorAll('[role="dialog"], [role="alertdialog"]')].map((d) => d.scrollWidth - d.clientWidth)));
        if (overflow > 0) problems.push(`${name}: ${overflow}px of horizontal scrolling in the dialog at 375 px`);
      }
      for (const v of await axeProblems(apage)) problems.push(`${name} at ${viewport.width} px: ${v}`);
      await apage.keyboard.press("Escape");
      await apage.waitForTimeout(300);
    };
    await apage.goto(`${server.url}/admin`);
    await apage.getByTestId("user-row").first().waitFor();
    await checked("40-admin-utilisateurs");
    const awa = apage.locator('[data-testid="user-row"][data-email="eleve@example.com"]');
    await awa.getByRole("button", { name: "Awa Diallo", exact: true }).click();
    await checked("41-admin-utilisateur-details");
    const action = async (label) => {
      await awa.getByRole("button", { name: /^Actions pour/ }).click();
      await apage.getByRole("menuitem", { name: label, exact: true }).click();
    };
    await action("Paiement");
    await dialogShot("42-admin-paiement");
    await action("Éditer");
    await dialogShot("43-admin-editer");
    await action("Accès");
    await apage.getByRole("button", { name: "Afficher le contenu de Préparation au TOEIC" }).click();
    await apage.getByTestId("access-content").first().waitFor();
    await apage.getByRole("button", { name: "Sélectionner" }).click();
    await dialogShot("44-admin-acces");
    for (const [tab, name] of [["Accès", "45-admin-onglet-acces"], ["Cours", "46-admin-onglet-cours"], ["Livres", "47-admin-livres"], ["Sessions", "48-admin-sessions"]]) {
      await apage.getByRole("tab", { name: tab }).click();
      await checked(name);
    }
    for (const [name, path] of [["49-admin-courses", "/admin/courses"], ["50-admin-course-contenu", `/admin/course/${id.pub}`], ["52-admin-course-detail", `/admin/courses/${id.pub}`], ["53-admin-course-edition", `/admin/courses/edit/${id.pub}`]]) {
      await apage.goto(`${server.url}${path}`);
      await checked(name);
      if (name === "50-admin-course-contenu") {
        await apage.getByRole("tab", { name: "Déblocage" }).click();
        await checked("51-admin-course-deblocage");
      }
    }
    // The book and lesson upload forms mid-upload and after.
    await uploadScreens(apage, server.url, id.pub, checked);
    await apage.goto(`${server.url}/messages`);
    await apage.getByTestId("conversation").first().waitFor();
    await checked("54-admin-messages");
    await apage.getByTestId("conversation").first().getByRole("button").click();
    await apage.getByTestId("message-list").waitFor();
    await checked("55-admin-conversation");
    await apage.goto(`${server.url}/compte`);
    await apage.getByRole("button", { name: /Déconnexion/ }).last().click().catch(() => undefined);
    await apage.waitForTimeout(500);
    await actx.close();
  }
} finally {
  await browser.close();
  server.stop();
}
console.log(`screenshots written to ${outDir}`);
if (problems.length) {
  console.error(problems.join("\n"));
  process.exit(1);
}
