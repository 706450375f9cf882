// End to end in headless Chromium (WebGPU on SwiftShader): build the app,
// serve the production build, open it with the smoke preset in the URL,
// check the status line said what it was doing while loading (the cold
// start's eval, the RL step being prepared), press Train once it is ready,
// wait until both variants have ≥ 3 points on the RC-Acc chart,
// open the rollout inspector. No console errors, and while training no main-thread
// task of LONGEST_TASK_BUDGET_MS or more and at most LONG_TASK_SHARE_BUDGET of the time
// in long tasks (PerformanceObserver "longtask"), on the production build (React's
// development build renders several times slower and is not what a visitor gets).
// Then, at the smallest sizes the page allows (G 2, 1 prompt, 4 held-out
// prompts): a two-seed run draws a 95 % band per variant, a fork starts at
// its parent's step, "Export ONNX" downloads a policy that onnxruntime loads,
// and two archived runs overlaid both appear in the legend.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { preview, type PreviewServer } from "vite";
import { buildApp } from "../../scripts/build-app";
import { chromium, type Browser, type Locator, type Page } from "playwright-core";
import { encodeExperiment } from "../../src/ui/lib/url-state";
import { presetExperiment } from "../../src/settings/presets";
import { parseExperiment } from "../../src/settings/experiment";
import { createOnnxSession } from "../../src/onnx/session";

const ROOT = resolve(import.meta.dirname, "../..");
const CHROMIUM = "/usr/bin/chromium";
const VARIANTS = ["rlvr", "grr"];
/**
 * Page-freeze budget (lab choice): no main-thread task this long while training, and long tasks ≤ this share of
 * the time. It is for freezes (a second or more without input), not for render speed: beside another job on a
 * 2-core machine the charts' renders reached 190–239 ms each, 0.056 of the window (2026-12-04), which failed the
 * earlier 500 ms / 0.05 budget on a page that was not frozen.
 */
const LONGEST_TASK_BUDGET_MS = 1_000;
const LONG_TASK_SHARE_BUDGET = 0.25;

/** The console errors and uncaught page errors of `page`, as they come. */
function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  return errors;
}

/** Waits until the status line's phase matches `want` (ready, paused, done, …). */
function waitForPhase(page: Page, want: RegExp) {
  return page.waitForFunction(
    (re) =>
      new RegExp(re).test(
        document.querySelector('[data-testid="status-phase"]')?.textContent ?? "",
      ),
    want.source,
    { timeout: 600_000, polling: 500 },
  );
}

/**
 * Checks a checkbox; once more (up to three clicks) when Playwright reports
 * that its click did not change the state. A full CI run on this 2-core
 * machine reported that once (2026-12-05) for the first overlay box right
 * after a Reset, and the test alone passed 3 of 3 times after it; the likely
 * cause is a click that landed while the page was still laying out. The box
 * must end checked, and the legend below must name both runs.
 */
async function checkBox(box: Locator): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await box.check({ timeout: 30_000 });
      return;
    } catch (e) {
      if (attempt >= 3 || !String(e).includes("did not change its state")) throw e;
      await box.page().waitForTimeout(500);
    }
  }
}

describe("the lab in headless Chromium", () => {
  let outDir: string;
  let server: PreviewServer;
  let browser: Browser;
  let url: string;
  let origin: string;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `No Chromium at ${CHROMIUM}: install Debian's chromium package (apt-get install chromium), or run 'bash scripts/ensure-system-deps.sh'.`,
      );
    }
    outDir = mkdtempSync(join(tmpdir(), "reward-lab-e2e-"));
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
    url = `${origin}#${encodeExperiment(presetExperiment("smoke"))}`;
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

  it("trains the smoke preset with two variants and shows their curves and rollouts", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const consoleErrors = collectErrors(page);
    await page.addInitScript(() => {
      const w = window as unknown as { __longTasks: Array<{ at: number; ms: number }> };
      w.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries())
          w.__longTasks.push({ at: Math.round(e.startTime), ms: Math.round(e.duration) });
      }).observe({ type: "longtask", buffered: true });
      // Every text the status line shows while the page loads (the progress indicator).
      const seen: string[] = [];
      (window as unknown as { __statusSeen: string[] }).__statusSeen = seen;
      new MutationObserver(() => {
        const t = document.querySelector('[data-testid="status"]')?.textContent ?? "";
        if (t && seen[seen.length - 1] !== t) seen.push(t);
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    await page.goto(url);
    const hasGpu = await page.evaluate(async () =>
      Boolean(navigator.gpu && (await navigator.gpu.requestAdapter())),
    );
    expect(
      hasGpu,
      "Chromium found no WebGPU adapter (needs --enable-unsafe-webgpu and SwiftShader from Debian's chromium package)",
    ).toBe(true);

    // Ready, after the status line said what it was doing: loading and the RL step's
    // pipelines being prepared (the cold start's eval waits for the first RL step).
    await page.waitForFunction(
      () =>
        document.querySelector('[data-testid="status-phase"]')?.textContent === "ready" &&
        !document.querySelector('[data-testid="status"] .muted'),
      null,
      { timeout: 300_000, polling: 200 },
    );
    const statusSeen = await page.evaluate(
      () => (window as unknown as { __statusSeen: string[] }).__statusSeen,
    );
    expect(
      statusSeen.some((t) => /preparing the RL step/.test(t)),
      `status texts seen: ${statusSeen.join(" | ")}`,
    ).toBe(true);

    await page.getByRole("button", { name: "Train", exact: true }).click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="status-phase"]')?.textContent?.match(/rl|sft/i),
      null,
      { timeout: 120_000 },
    );
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
    for (const v of VARIANTS)
      expect(Number(await chart.getAttribute(`data-points-${v}`))).toBeGreaterThanOrEqual(3);
    // The cold start's step-0 eval ran after the first RL step, and the status line said so.
    const seenAfter = await page.evaluate(
      () => (window as unknown as { __statusSeen: string[] }).__statusSeen,
    );
    expect(
      seenAfter.some((t) => /evaluating the cold-start checkpoint \(step 0\)/.test(t)),
      `status texts seen: ${seenAfter.join(" | ")}`,
    ).toBe(true);
    const { longTasks, trainingTo } = await page.evaluate(() => ({
      longTasks: (
        window as unknown as { __longTasks: Array<{ at: number; ms: number }> }
      ).__longTasks.slice(),
      trainingTo: performance.now(),
    }));

    await page.getByRole("button", { name: "Inspect rollouts", exact: true }).click();
    const inspector = page.getByTestId("inspector");
    await expect.poll(() => inspector.isVisible()).toBe(true);
    const rows = await page.getByTestId("rollout-table").locator("tbody tr").count();
    expect(rows).toBeGreaterThanOrEqual(4); // the smoke preset's G = 4 rollouts

    // LAB_SCREENSHOT=FILE keeps a picture of this run (npm run screenshot:lesson makes the README's).
    // (the first screen only: charts further down draw when scrolled into view).
    const shot = process.env.LAB_SCREENSHOT;
    await page.screenshot(
      shot ? { path: shot } : { path: join(outDir, "lab.png"), fullPage: true },
    );
    expect(consoleErrors, consoleErrors.join("\n")).toEqual([]);
    // A budget, not a zero: on a 2-core machine another job can stretch a 30 ms render past 50 ms, but a page
    // that does model or reward math on its thread shows tasks of seconds. Speed itself lives in the benchmarks.
    const span = Math.max(1, trainingTo - trainingFrom);
    const longest = Math.max(0, ...longTasks.map((t) => t.ms));
    const share = longTasks.reduce((a, t) => a + t.ms, 0) / span;
    const listed = longTasks.map((t) => `${t.ms} ms at ${t.at}`).join(", ");
    expect(
      longest,
      `longest main-thread task while training (from t = ${trainingFrom} ms): ${listed}`,
    ).toBeLessThan(LONGEST_TASK_BUDGET_MS);
    expect(share, `share of the training window in long tasks: ${listed}`).toBeLessThan(
      LONG_TASK_SHARE_BUDGET,
    );
    await page.close();
  }, 1_500_000); // WebGPU on SwiftShader: minutes, not seconds
  it("draws a seed band per variant, starts a fork at its parent's step, exports a policy to ONNX, and names two overlaid runs in the legend", async () => {
    // The smallest run the page allows, on the shipped cold start (no hint, no trace slips: its checkpoint ships).
    const tiny = (extra: Record<string, unknown>) =>
      encodeExperiment(
        parseExperiment({
          modelSize: "small",
          task: { hintRate: 0, traceSlipRate: 0 },
          variants: [{ name: "rlvr" }, { name: "grr" }],
          algorithm: { groupSize: 2, batchPrompts: 1, evalEvery: 1, steps: 1 },
          evalSize: 4,
          ...extra,
        }),
      );
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const consoleErrors = collectErrors(page);
    const phase = (want: RegExp) => waitForPhase(page, want);
    // The run control (the x-axis toggle has a "Step" button too).
    const stepButton = page
      .getByRole("button", { name: "Step", exact: true })
      .and(page.getByTitle("Run exactly one RL step"));
    const chartAttr = (p: Page, name: string) => p.getByTestId("chart-rcAcc").getAttribute(name);
    // LAB_SCREENSHOT_DIR=dir keeps a picture of each stage (seeds.png, fork.png, overlay.png).
    const shotDir = process.env.LAB_SCREENSHOT_DIR;
    const shot = async (name: string) => {
      if (shotDir) await page.screenshot({ path: join(shotDir, name), fullPage: true });
    };

    // 1. Two seeds: every variant's RC-Acc is a mean line with a shaded band.
    await page.goto(`${origin}#${tiny({ seeds: [1, 2] })}`);
    // The settings (seeds, variant cards with their fork and export buttons) are one click away.
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    await expect.poll(() => page.getByLabel("Seeds", { exact: true }).inputValue()).toBe("1,2");
    await phase(/ready/);
    await page.getByRole("button", { name: "Train", exact: true }).click();
    await phase(/done/);
    for (const v of VARIANTS) {
      // Attached, not "visible": at these sizes both seeds may give the same values, and a zero-height band has an empty box.
      await page.waitForSelector(`[data-testid="chart-rcAcc"] .recharts-area.band-${v} path`, {
        state: "attached",
        timeout: 60_000,
      });
      expect(await chartAttr(page, `data-banded-${v}`)).toBe("1");
      expect(Number(await chartAttr(page, `data-points-${v}`))).toBe(2); // steps 0 and 1, one point per step over both seeds
    }
    await shot("seeds.png");

    // 2. One seed, two steps: Reset (archives run 1), step once, fork GRR with λ 2, step again.
    await page.evaluate(
      (h) => (location.hash = h),
      tiny({ algorithm: { groupSize: 2, batchPrompts: 1, evalEvery: 1, steps: 2 } }),
    );
    await expect.poll(() => page.getByLabel("Seeds", { exact: true }).inputValue()).toBe("");
    await page.getByRole("button", { name: "Reset", exact: true }).click();
    await phase(/ready/);
    await stepButton.click();
    await phase(/paused/);
    const fork = page.getByTestId("fork-grr");
    await fork.locator("summary").click();
    await fork.getByLabel("grr fork lambda").fill("2");
    await fork.getByRole("button", { name: "Fork", exact: true }).click();
    await page.waitForFunction(
      () =>
        document
          .querySelector('[data-testid="chart-rcAcc"]')
          ?.getAttribute("data-points-grr_fork1") === "1",
      null,
      { timeout: 120_000 },
    );
    expect(await chartAttr(page, "data-first-step-grr_fork1")).toBe("1"); // the parent's step when it was forked
    await stepButton.click();
    await phase(/done/);
    await page.waitForFunction(
      () =>
        document
          .querySelector('[data-testid="chart-rcAcc"]')
          ?.getAttribute("data-points-grr_fork1") === "2",
      null,
      { timeout: 120_000 },
    );
    expect(await chartAttr(page, "data-first-step-grr_fork1")).toBe("1");
    await expect.poll(() => page.getByTestId("legend").textContent()).toContain("GRR fork@1 · λ 2");
    await page.waitForSelector('[data-testid="chart-rcAcc"] .recharts-line.series-fork path', {
      state: "attached",
      timeout: 60_000,
    });
    await shot("fork.png");

    // "Export ONNX" of RLVR's policy: written and run in onnxruntime-web in the trainer worker
    // (threads: the page is cross-origin isolated), downloaded, and it loads and runs in Node.
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
    const [download] = await Promise.all([
      page.waitForEvent("download", { timeout: 300_000 }),
      page.getByTestId("export-onnx-rlvr").click(),
    ]);
    expect(download.suggestedFilename()).toBe("rlvr-seed1-step2.onnx");
    const onnxFile = join(outDir, download.suggestedFilename());
    await download.saveAs(onnxFile);
    await expect
      .poll(() => page.getByTestId("log").textContent())
      .toMatch(
        /exported rlvr \(seed 1, step 2\) as ONNX: \d+ bytes; loaded and run in onnxruntime-web \(2 threads\)/,
      );
    const ort = await createOnnxSession(new Uint8Array(readFileSync(onnxFile)));
    const textLen = 10;
    const logits = await ort.run(new Float32Array(28 * 56), new Int32Array(textLen).fill(5), 1);
    expect(logits.length).toBe(textLen * 196);
    expect(logits.every(Number.isFinite)).toBe(true);
    await ort.release();

    // 3. Reset archives run 2; overlay runs 1 and 2 on the (empty) current run.
    await page.getByRole("button", { name: "Reset", exact: true }).click();
    await phase(/ready/);
    await checkBox(page.getByLabel("Overlay run 1", { exact: true }));
    await checkBox(page.getByLabel("Overlay run 2", { exact: true }));
    const overlayItems = page.getByTestId("legend").locator(".legend-item.overlay");
    await expect
      .poll(() => overlayItems.allTextContents())
      .toEqual(
        expect.arrayContaining([
          "RLVR · run 1 · seeds 1,2, steps 1",
          "GRR · run 1 · seeds 1,2, steps 1",
          "RLVR · run 2 · same settings",
          "GRR · run 2 · same settings",
          "GRR fork@1 · λ 2 · run 2 · same settings",
        ]),
      );
    for (const key of ["r1_rlvr", "r1_grr", "r2_grr", "r2_grr_fork1"])
      await expect.poll(() => chartAttr(page, `data-points-${key}`)).not.toBeNull();
    // Checking the boxes scrolled down to the runs table; off-screen charts draw no SVG (useInView).
    await page.getByTestId("chart-rcAcc").scrollIntoViewIfNeeded();
    await page.waitForSelector('[data-testid="chart-rcAcc"] .recharts-line.series-overlay path', {
      state: "attached",
      timeout: 60_000,
    });
    await shot("overlay.png");
    expect(consoleErrors, consoleErrors.join("\n")).toEqual([]);
    await page.close();
  }, 1_200_000);

  it("trains SCS and ACRE on multiple choice: their cards, the cut and the re-ask in the inspector, OSCR charted", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const consoleErrors = collectErrors(page);
    const hash = encodeExperiment(
      parseExperiment({
        modelSize: "small",
        task: { multipleChoice: true, hintRate: 0, traceSlipRate: 0 },
        variants: [{ name: "scs", weights: { m: 2 } }, { name: "acre" }],
        algorithm: { groupSize: 2, batchPrompts: 1, evalEvery: 1, steps: 1 },
        evalSize: 4,
      }),
    );
    await page.goto(`${origin}#${hash}`);
    const phase = (want: RegExp) => waitForPhase(page, want);
    await phase(/ready/);
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    // The cards come from the variant table: formulas and one control per weight.
    const cards = page.getByTestId("variant-scs");
    await expect.poll(() => cards.textContent()).toContain("r_con = c·(m − |𝒜|)/m");
    await expect
      .poll(() => page.getByTestId("variant-acre").textContent())
      .toContain("α2 (one right)");
    expect(await page.getByLabel("scs k (truncation ratio)", { exact: true }).count()).toBe(1);
    await page.getByRole("button", { name: "Train", exact: true }).click();
    await phase(/done/);
    await page.getByRole("button", { name: "Inspect rollouts", exact: true }).click();
    const inspector = page.getByTestId("inspector");
    await inspector.getByRole("tab", { name: "SCS" }).click();
    await expect.poll(() => inspector.getByTestId("scs-detail").count()).toBe(2);
    await expect
      .poll(() => inspector.getByTestId("scs-detail").first().textContent())
      .toMatch(/cut after \d+ tokens.*2 continuations ended on .*\(\d distinct\)/);
    await inspector.getByRole("tab", { name: "ACRE" }).click();
    await expect.poll(() => inspector.getByTestId("reask-detail").count()).toBe(2);
    await expect
      .poll(() => inspector.getByTestId("reask-detail").first().textContent())
      .toMatch(
        /first answer [A-D] \(-?\d+\); re-asked with options A: -?\d+.*answered .*\((same|another) option\)/,
      );
    // LAB_SCREENSHOT_DIR=dir keeps a picture of the inspector on ACRE (scs-acre.png).
    if (process.env.LAB_SCREENSHOT_DIR)
      await page.screenshot({ path: join(process.env.LAB_SCREENSHOT_DIR, "scs-acre.png") });
    const oscr = page.getByTestId("chart-oscr");
    await oscr.scrollIntoViewIfNeeded();
    for (const v of ["scs", "acre"])
      await expect.poll(() => oscr.getAttribute(`data-points-${v}`)).toBe("2"); // steps 0 and 1
    // The SCS scenario's metrics are charted at every eval too, one click away (More metrics: held-out).
    await page.getByTestId("metrics-group-held-out").click();
    for (const key of ["luckyGuess", "distinctK08"]) {
      const chart = page.getByTestId(`chart-${key}`);
      await chart.scrollIntoViewIfNeeded();
      await expect.poll(() => chart.getAttribute("data-points-scs")).toBe("2");
    }
    expect(consoleErrors, consoleErrors.join("\n")).toEqual([]);
    await page.close();
  }, 1_200_000);
  it("trains the PRM arm on the page: the ONNX PRM in the reward worker, its step scores in the inspector", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const consoleErrors = collectErrors(page);
    const hash = encodeExperiment(
      parseExperiment({
        modelSize: "small",
        variants: [{ name: "prm" }],
        algorithm: { groupSize: 2, batchPrompts: 1, evalEvery: 1, steps: 1 },
        evalSize: 4,
      }),
    );
    await page.goto(`${origin}#${hash}`);
    const phase = (want: RegExp) => waitForPhase(page, want);
    await phase(/ready/);
    await page.getByRole("button", { name: "Settings", exact: true }).click();
    await expect
      .poll(() => page.getByTestId("variant-prm").textContent())
      .toContain("R = r_ver + λ·mean_k s_k");
    await page.getByRole("button", { name: "Train", exact: true }).click();
    await phase(/done/);
    await page.getByRole("button", { name: "Inspect rollouts", exact: true }).click();
    const inspector = page.getByTestId("inspector");
    await expect.poll(() => inspector.getByTestId("prm-detail").count()).toBe(2);
    // Each step's score, as the worker's onnxruntime-web session gave it.
    await expect
      .poll(async () => (await inspector.getByTestId("prm-detail").allTextContents()).join(" | "))
      .toMatch(/PRM step scores\s*1: [01]\.\d\d/);
    if (process.env.LAB_SCREENSHOT_DIR)
      await page.screenshot({ path: join(process.env.LAB_SCREENSHOT_DIR, "prm.png") });
    expect(consoleErrors, consoleErrors.join("\n")).toEqual([]);
    await page.close();
  }, 1_200_000);
});
