import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

// Cross-origin isolation (SharedArrayBuffer, precise timers). It is also what
// onnxruntime-web needs for threads, for the learned PRM the design plans for
// the reward worker; no ONNX model runs in the lab yet.
const isolation = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
};

export default defineConfig({
  base: "./",
  plugins: [react()],
  worker: { format: "es" },
  server: { headers: isolation },
  preview: { headers: isolation },
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    // Dawn (npm `webgpu`) is safest in child processes, one device per file.
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 300_000,
    hookTimeout: 300_000,
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
