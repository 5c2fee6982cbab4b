/// <reference types="vitest/config" />
import path from "node:path";
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";
import tailwindcss from "@tailwindcss/vite";

// In `npm run dev`, the runtime config and the API come from a local `supalite serve`.
const backend = process.env.SUPALITE_BACKEND ?? "http://127.0.0.1:8000";

export default defineConfig({
  plugins: [react(), tailwindcss()],
  resolve: { alias: { "@": path.resolve(__dirname, "src") } },
  server: {
    proxy: {
      "/config.js": backend,
      "/auth/v1": backend,
      "/rest/v1": backend,
      "/storage/v1": backend,
      "/realtime/v1": { target: backend, ws: true },
    },
  },
  build: {
    manifest: true,
    chunkSizeWarningLimit: 600,
  },
  test: {
    environment: "node",
    include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
  },
});
