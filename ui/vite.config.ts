import { defineConfig } from "vitest/config";

// Tauri loads the built files from ui/dist; the dev server is only for `tauri dev`.
export default defineConfig({
  clearScreen: false,
  server: { port: 5173, strictPort: true },
  build: { target: "es2022", outDir: "dist", emptyOutDir: true },
  test: { include: ["tests/**/*.test.ts"] },
});
