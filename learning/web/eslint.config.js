// Lint for the web app: TypeScript and hooks rules, and the module boundaries.
//
// Boundaries: a feature (src/features/<name>) is used from outside only through its public
// entry `@/features/<name>` (its index.ts); inside, it imports its own files freely. Shared code
// in src/components and src/lib depends on no feature and no route; features depend on no route.
import { readdirSync } from "node:fs";
import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

const features = readdirSync(new URL("./src/features", import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

const ROUTES = { group: ["@/app/**"], message: "Routes depend on features, never the reverse." };
const FEATURE_INTERNALS = "Use the feature's public entry '@/features/<name>' (its index.ts), not its internals.";

function restrict(...patterns) {
  return { "no-restricted-imports": ["error", { patterns }] };
}

const featureBoundaries = features.map((name) => ({
  files: [`src/features/${name}/**/*.{ts,tsx}`],
  rules: restrict(
    ROUTES,
    { group: ["@/features/*/**", `!@/features/${name}/**`], message: FEATURE_INTERNALS },
    { group: ["../../**"], message: "Leave a feature through '@/…' imports, not relative paths." },
  ),
}));

export default tseslint.config(
  { ignores: ["dist", "node_modules", "e2e", "scripts", "screenshots"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["src/**/*.{ts,tsx}"],
    languageOptions: { globals: globals.browser },
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["src/app/**/*.{ts,tsx}"],
    rules: restrict({ group: ["@/features/*/**"], message: FEATURE_INTERNALS }),
  },
  {
    files: ["src/components/**/*.{ts,tsx}", "src/lib/**/*.{ts,tsx}"],
    rules: restrict(ROUTES, { group: ["@/features/**"], message: "Shared code depends on no feature: move the shared part to components/ or lib/." }),
  },
  ...featureBoundaries,
  { files: ["*.{js,ts}"], languageOptions: { globals: globals.node } },
);
