/**
 * The browser half of the benchmarks: builds a Vite entry (the lab's
 * index.html, or another page of the repository) into a temporary folder,
 * serves the production build, launches headless Chromium with WebGPU and
 * hands the page's URL and the browser to `fn`; everything is closed and
 * removed afterwards, whatever `fn` does.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { preview } from "vite";
import { buildApp } from "../build-app";

const ROOT = resolve(import.meta.dirname, "../..");
const CHROMIUM = "/usr/bin/chromium";

/**
 * Runs `fn(url, browser)` against a fresh production build of `entry`
 * (a path below the repository root; default "index.html", the lab).
 * @throws Error without Chromium at /usr/bin/chromium, or what `fn` throws.
 */
export async function withBuiltPage<T>(
  entry: string,
  fn: (url: string, browser: Browser) => Promise<T>,
): Promise<T> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `No Chromium at ${CHROMIUM}: install Debian's chromium package, or run 'bash scripts/ensure-system-deps.sh'`,
    );
  const outDir = mkdtempSync(join(tmpdir(), "reward-lab-page-"));
  const input = entry === "index.html" ? undefined : { input: join(ROOT, entry) };
  await buildApp(ROOT, outDir, input ? { rollupOptions: input } : {});
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
    const page = entry === "index.html" ? "" : entry;
    return await fn(`http://127.0.0.1:${address.port}/${page}`, browser);
  } finally {
    await browser.close();
    await new Promise<void>((res) => server.httpServer.close(() => res()));
    rmSync(outDir, { recursive: true, force: true });
  }
}
