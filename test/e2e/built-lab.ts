/**
 * The setup the page's end-to-end tests share: the page built for production
 * into a fresh temp folder (scripts/build-app.ts), served under /reward-lab/
 * by the plain static server (as GitHub Pages would), and the system Chromium
 * with WebGPU on (SwiftShader on a machine without a GPU).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { buildApp } from "../../scripts/build-app";
import { serveStatic } from "./static-server";

/** The repository's root. */
export const ROOT = resolve(import.meta.dirname, "../..");
/** Debian's chromium package. */
const CHROMIUM = "/usr/bin/chromium";

/** A built, served page and the browser that opens it. */
export interface BuiltLab {
  /** The build's folder (the served files). */
  outDir: string;
  site: { url: string; close(): Promise<void> };
  browser: Browser;
}

/**
 * Builds the page into a temp folder named after `tag`, serves it and starts
 * Chromium with `--enable-unsafe-webgpu`.
 * @throws Error naming what to install when /usr/bin/chromium is missing.
 */
export async function openBuiltLab(tag: string): Promise<BuiltLab> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `No Chromium at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium), or run 'bash scripts/ensure-system-deps.sh'.`,
    );
  const outDir = mkdtempSync(join(tmpdir(), `reward-lab-${tag}-`));
  await buildApp(ROOT, outDir);
  const site = await serveStatic(outDir, "/reward-lab/");
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--enable-unsafe-webgpu", "--no-sandbox", "--no-first-run", "--disable-quic"],
  });
  return { outDir, site, browser };
}

/** Closes what openBuiltLab opened (any part may be missing after a failed start). */
export async function closeBuiltLab(lab: Partial<BuiltLab>): Promise<void> {
  await lab.browser?.close();
  await lab.site?.close();
  if (lab.outDir) rmSync(lab.outDir, { recursive: true, force: true });
}
