// End to end in headless Chromium (WebGPU on SwiftShader): build the app,
// serve the production build, open it with the smoke preset in the URL,
// press Train, wait until both variants have ≥ 3 points on the RC-Acc chart,
// open the rollout inspector. No console errors, and no main-thread task
// over 50 ms while training (PerformanceObserver "longtask").
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build, preview, type PreviewServer } from "vite";
import { chromium, type Browser } from "playwright-core";
import { encodeExperiment } from "../../src/ui/lib/url-state";
import { presetExperiment } from "../../src/rl/presets";

const ROOT = resolve(import.meta.dirname, "../..");
const CHROMIUM = "/usr/bin/chromium";
const VARIANTS = ["rlvr", "grr"];

describe("the lab in headless Chromium", () => {
  let outDir: string;
  let server: PreviewServer;
  let browser: Browser;
  let url: string;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`No Chromium at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium), or run 'bash scripts/ensure-system-deps.sh'.`);
    }
    outDir = mkdtempSync(join(tmpdir(), "reward-lab-e2e-"));
    await build({ root: ROOT, logLevel: "error", build: { outDir, emptyOutDir: true } });
    server = await preview({ root: ROOT, logLevel: "error", build: { outDir }, preview: { port: 0, host: "127.0.0.1", strictPort: false } });
    const address = server.httpServer.address();
    if (!address || typeof address === "string") throw new Error("preview server has no port");
    url = `http://127.0.0.1:${address.port}/#${encodeExperiment(presetExperiment("smoke"))}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--enable-unsafe-webgpu", "--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((r) => (server ? server.httpServer.close(() => r()) : r()));
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  it("trains the smoke preset with two variants and shows their curves and rollouts", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const consoleErrors: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") consoleErrors.push(m.text());
    });
    page.on("pageerror", (e) => consoleErrors.push(`pageerror: ${e.message}`));
    await page.addInitScript(() => {
      const w = window as unknown as { __longTasks: Array<{ at: number; ms: number }> };
      w.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__longTasks.push({ at: Math.round(e.startTime), ms: Math.round(e.duration) });
      }).observe({ type: "longtask", buffered: true });
    });
    await page.goto(url);
    const hasGpu = await page.evaluate(async () => Boolean(navigator.gpu && (await navigator.gpu.requestAdapter())));
    expect(hasGpu, "Chromium found no WebGPU adapter (needs --enable-unsafe-webgpu and SwiftShader from Debian's chromium package)").toBe(true);

    await page.getByRole("button", { name: "Train", exact: true }).click();
    await page.waitForFunction(() => document.querySelector('[data-testid="status-phase"]')?.textContent?.match(/rl|sft/i), null, { timeout: 120_000 });
    // Long tasks are counted from here: while training.
    const trainingFrom = await page.evaluate(() => {
      (window as unknown as { __longTasks: unknown[] }).__longTasks.length = 0;
      return Math.round(performance.now());
    });

    const chart = page.getByTestId("chart-rcAcc");
    await page.waitForFunction(
      (variants) => {
        const el = document.querySelector('[data-testid="chart-rcAcc"]');
        return !!el && variants.every((v) => Number(el.getAttribute(`data-points-${v}`) ?? 0) >= 3);
      },
      VARIANTS,
      { timeout: 1_200_000, polling: 1000 },
    );
    for (const v of VARIANTS) expect(Number(await chart.getAttribute(`data-points-${v}`))).toBeGreaterThanOrEqual(3);
    const longTasks = await page.evaluate(() => (window as unknown as { __longTasks: Array<{ at: number; ms: number }> }).__longTasks.slice());

    await page.getByRole("button", { name: "Inspect rollouts", exact: true }).click();
    const inspector = page.getByTestId("inspector");
    await expect.poll(() => inspector.isVisible()).toBe(true);
    const rows = await page.getByTestId("rollout-table").locator("tbody tr").count();
    expect(rows).toBeGreaterThanOrEqual(4); // the smoke preset's G = 4 rollouts

    // LAB_SCREENSHOT=docs/screenshot.png refreshes the README's screenshot from this run.
    // (the first screen only: charts further down draw when scrolled into view).
    const shot = process.env.LAB_SCREENSHOT;
    await page.screenshot(shot ? { path: shot } : { path: join(outDir, "lab.png"), fullPage: true });
    expect(consoleErrors, consoleErrors.join("\n")).toEqual([]);
    expect(longTasks, `main-thread tasks over 50 ms while training (from t = ${trainingFrom} ms): ${longTasks.map((t) => `${t.ms} ms at ${t.at}`).join(", ")}`).toEqual([]);
    await page.close();
  }, 1_500_000); // WebGPU on SwiftShader: minutes, not seconds
});
