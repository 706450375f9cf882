/**
 * The Chromium half of `npm run bench:engine`: builds scripts/bench-engine.html
 * with Vite, serves it, opens it in headless Chromium (WebGPU; SwiftShader
 * here) and returns the JSON line its worker writes.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium } from "playwright-core";
import { build, preview } from "vite";

const ROOT = resolve(import.meta.dirname, "..");
const CHROMIUM = "/usr/bin/chromium";

/**
 * Runs the engine benchmark in Chromium with `repeats` timed runs per part.
 * @throws Error without Chromium at /usr/bin/chromium, or when the page reports an error.
 */
export async function runEnginePage(repeats: number): Promise<Record<string, unknown>> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `No Chromium at ${CHROMIUM}: install Debian's chromium package, or run 'bash scripts/ensure-system-deps.sh'`,
    );
  const outDir = mkdtempSync(join(tmpdir(), "reward-lab-bench-engine-"));
  await build({
    root: ROOT,
    logLevel: "error",
    build: {
      outDir,
      emptyOutDir: true,
      rollupOptions: { input: join(ROOT, "scripts", "bench-engine.html") },
    },
  });
  const server = await preview({
    root: ROOT,
    logLevel: "error",
    build: { outDir },
    preview: { port: 0, host: "127.0.0.1", strictPort: false },
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--enable-unsafe-webgpu", "--no-sandbox", "--no-first-run"],
  });
  try {
    const address = server.httpServer.address();
    if (!address || typeof address === "string") throw new Error("preview server has no port");
    const page = await browser.newPage();
    page.on("console", (m) => process.stderr.write(`${m.text()}\n`));
    await page.goto(
      `http://127.0.0.1:${address.port}/scripts/bench-engine.html?repeats=${repeats}`,
    );
    await page.waitForFunction(() => "__benchEngine" in window, null, {
      timeout: 1_200_000,
      polling: 500,
    });
    const line = (await page.evaluate(
      () => (window as unknown as { __benchEngine: unknown }).__benchEngine,
    )) as Record<string, unknown>;
    if (typeof line.error === "string") throw new Error(`chromium: ${line.error}`);
    return line;
  } finally {
    await browser.close();
    await new Promise<void>((r) => server.httpServer.close(() => r()));
    rmSync(outDir, { recursive: true, force: true });
  }
}
