// Faults in the built page, in headless Chromium (WebGPU on SwiftShader), at
// the smallest sizes the page allows (RLVR and GRR, G 2, one prompt per
// step, 4 held-out prompts, an eval every step, 4 steps):
// - the GPU device is destroyed in the middle of the run (the page's fault
//   hook `__rewardLabFaults.loseDevice()`, as a driver reset would): the run
//   goes on from its last snapshot on a new device and ends at step 4 with
//   every step's row once (at most the step in flight lost and trained
//   again), a ⚠ marker at the step trained again, and no error;
// - the trainer worker dies in the middle of the run (`crashTrainer()`: an
//   uncaught error in the worker): the page starts a new worker, resumes it
//   from the last step's state and training goes on to step 4, the same way.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { preview, type PreviewServer } from "vite";
import { buildApp } from "../../scripts/build-app";
import { chromium, type Browser, type Page } from "playwright-core";
import { encodeExperiment } from "../../src/ui/lib/url-state";
import { parseExperiment } from "../../src/settings/experiment";

const ROOT = resolve(import.meta.dirname, "../..");
const CHROMIUM = "/usr/bin/chromium";
const VARIANTS = ["rlvr", "grr"];
const STEPS = 4;

function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  return errors;
}

function waitForPhase(page: Page, want: RegExp) {
  return page.waitForFunction(
    (re) =>
      new RegExp(re).test(
        document.querySelector('[data-testid="status-phase"]')?.textContent ?? "",
      ),
    want.source,
    { timeout: 900_000, polling: 500 },
  );
}

/** The number of points a chart draws for `variant` (one per step that has a row). */
function points(page: Page, chart: string, variant: string): Promise<number> {
  return page
    .getByTestId(chart)
    .getAttribute(`data-points-${variant}`)
    .then((v) => Number(v ?? 0));
}

/** The run's rows as "Export JSON" downloads them: `variant kind step` of each, sorted. */
async function exportedRows(page: Page, dir: string): Promise<string[]> {
  const [download] = await Promise.all([
    page.waitForEvent("download", { timeout: 120_000 }),
    page.getByRole("button", { name: "Export JSON", exact: true }).click(),
  ]);
  const file = join(dir, `rows-${Date.now()}.json`);
  await download.saveAs(file);
  const run = JSON.parse(readFileSync(file, "utf8")) as {
    rows: { variant: string; kind: string; step: number }[];
  };
  return run.rows.map((r) => `${r.variant} ${r.kind} ${r.step}`).sort();
}

/** Each variant's eval rows at steps 0..STEPS and train rows at 1..STEPS, once each. */
const EVERY_STEP_ONCE = VARIANTS.flatMap((v) => [
  ...Array.from({ length: STEPS + 1 }, (_, s) => `${v} eval ${s}`),
  ...Array.from({ length: STEPS }, (_, s) => `${v} train ${s + 1}`),
]).sort();

describe("faults in the page, in headless Chromium", () => {
  let outDir: string;
  let server: PreviewServer;
  let browser: Browser;
  let origin: string;
  const hash = encodeExperiment(
    parseExperiment({
      modelSize: "small",
      task: { hintRate: 0, traceSlipRate: 0 },
      variants: VARIANTS.map((name) => ({ name })),
      algorithm: { groupSize: 2, batchPrompts: 1, evalEvery: 1, steps: STEPS },
      evalSize: 4,
    }),
  );

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `No Chromium at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium), or run 'bash scripts/ensure-system-deps.sh'.`,
      );
    }
    outDir = mkdtempSync(join(tmpdir(), "reward-lab-faults-"));
    await buildApp(ROOT, outDir);
    server = await preview({
      root: ROOT,
      logLevel: "error",
      build: { outDir },
      preview: { port: 0, host: "127.0.0.1", strictPort: false },
    });
    const address = server.httpServer.address();
    if (!address || typeof address === "string") throw new Error("preview server has no port");
    origin = `http://127.0.0.1:${address.port}/`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--enable-unsafe-webgpu",
        "--no-sandbox",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((r) => (server ? server.httpServer.close(() => r()) : r()));
    if (outDir) rmSync(outDir, { recursive: true, force: true });
  });

  /**
   * Opens the page, trains, calls the fault hook `fault` once the first
   * step's rows are on the charts (training goes on meanwhile), waits for
   * the end; returns the marker list's text and the console errors.
   */
  async function trainWithFault(fault: "loseDevice" | "crashTrainer") {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors = collectErrors(page);
    await page.goto(`${origin}#${hash}`);
    expect(
      await page.evaluate(async () =>
        Boolean(navigator.gpu && (await navigator.gpu.requestAdapter())),
      ),
      "Chromium found no WebGPU adapter (needs --enable-unsafe-webgpu and SwiftShader from Debian's chromium package)",
    ).toBe(true);
    await waitForPhase(page, /ready/);
    await page.getByRole("button", { name: "Train", exact: true }).click();
    // Mid-run: the first step is on the charts (eval at steps 0 and 1), later steps are not yet.
    await page.waitForFunction(
      () =>
        Number(
          document.querySelector('[data-testid="chart-rcAcc"]')?.getAttribute("data-points-rlvr") ??
            0,
        ) >= 2,
      null,
      { timeout: 900_000, polling: 100 },
    );
    const before = await points(page, "chart-rcAcc", "rlvr");
    await page.evaluate((f) => {
      const hooks = (window as unknown as { __rewardLabFaults: Record<string, () => void> })
        .__rewardLabFaults;
      hooks[f]();
    }, fault);
    await waitForPhase(page, /done/);
    const markers = (await page.getByTestId("markers").textContent()) ?? "";
    const log = (await page.getByTestId("log").textContent()) ?? "";
    return { page, errors, before, markers, log };
  }

  it("a lost device mid-run: a new device, every step once, a ⚠ marker, the run goes on to its end", async () => {
    const { page, errors, before, markers, log } = await trainWithFault("loseDevice");
    expect(before).toBeLessThan(STEPS + 1);
    // Every step's rows once, none missing: the lost step's rows never went out, its retrial's did.
    expect(await exportedRows(page, outDir)).toEqual(EVERY_STEP_ONCE);
    for (const v of VARIANTS) expect(await points(page, "chart-rcAcc", v)).toBe(STEPS + 1);
    expect(markers).toMatch(
      /⚠ step \d · (RLVR|GRR): GPU device lost .*went on from the snapshot of step \d on a new device/,
    );
    expect(log).toMatch(/new device: .*Restored the snapshot of step \d; step \d is trained again/);
    expect(errors, errors.join("\n")).toEqual([]);
    await page.close();
  }, 1_800_000);

  it("a trainer worker that dies mid-run: a new worker from the last step's state, every step once, a ⚠ marker", async () => {
    const { page, errors, before, markers, log } = await trainWithFault("crashTrainer");
    expect(before).toBeLessThan(STEPS + 1);
    expect(await exportedRows(page, outDir)).toEqual(EVERY_STEP_ONCE);
    for (const v of VARIANTS) expect(await points(page, "chart-rcAcc", v)).toBe(STEPS + 1);
    expect(markers).toMatch(
      /⚠ step \d · (RLVR|GRR): the trainer worker stopped .*went on from the state of step \d in a new worker/,
    );
    expect(log).toMatch(/trainer worker stopped/);
    // The worker's crash is reported (it is a fault), then got over: no other error.
    expect(
      errors.filter((e) => !/trainer worker crashed \(fault injection\)/.test(e)),
      errors.join("\n"),
    ).toEqual([]);
    await page.close();
  }, 1_800_000);
});
