import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

// Cross-origin isolation (SharedArrayBuffer, precise timers), sent in dev and
// preview. It is also what onnxruntime-web needs for threads: the trainer
// worker loads and runs an exported policy there ("Export ONNX",
// src/workers/onnx-export.ts), and the reward worker runs the learned PRM
// (public/prm/*.onnx, src/workers/reward.worker.ts). Its wasm runtime is served as `?url` assets
// (src/onnx/browser-wasm.ts); the package is left out of the dev server's
// dependency pre-bundling, which would move its module away from them.
const isolation = {
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Embedder-Policy": "require-corp",
};

// The page takes onnxruntime-web's wasm-only build (the pair of files
// src/onnx/browser-wasm.ts serves); Node (tests, CLIs) keeps the package's
// own entry, whose "node" build finds its wasm and runs threads there.
const ortWasmOnly = [{ find: /^onnxruntime-web$/, replacement: "onnxruntime-web/wasm" }];

export default defineConfig(({ mode }) => ({
  base: "./",
  plugins: [react()],
  resolve: { alias: mode === "test" ? [] : ortWasmOnly },
  worker: { format: "es" },
  optimizeDeps: { exclude: ["onnxruntime-web", "onnxruntime-web/wasm"] },
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
}));
