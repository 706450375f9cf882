// The lesson end to end in headless Chromium (WebGPU on SwiftShader), on the
// production build served by a plain static server under a sub-path, with
// no COOP/COEP headers (test/e2e/static-server.ts), as a teacher would host it:
//   1. the page is not cross-origin isolated, its status line says one
//      thread, and it trains a step;
//   2. every preset of the Experiment picker (the first chosen with the
//      keyboard) starts: the link holds the CLI preset's experiment, the
//      overview shows the preset's charts, and one RL step trains;
//   3. without navigator.gpu the page says so in one line and plays the
//      default experiment's recording (play, pause, scrub) in the same
//      charts, guided view and inspector, opened where its curves part,
//      its credit chart labelled the mechanism to read first and its
//      overview the effects.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { decodeExperiment, decodePreset, encodeExperiment } from "../../src/ui/lib/url-state";
import { presetEntry, presetExperiment, PICKER_PRESETS } from "../../src/settings/presets";
import { parseExperiment } from "../../src/settings/experiment";
import { checkRecording } from "../../src/store/saved-run-check";
import { overviewMetrics } from "../../src/store/lesson";
import { recordingOpenStep } from "../../src/ui/lib/recording-open";
import { closeBuiltLab, openBuiltLab } from "./built-lab";

function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  return errors;
}

const phaseText = (page: Page) => page.getByTestId("status-phase").textContent();
function waitForPhase(page: Page, want: RegExp, timeout = 900_000) {
  return page.waitForFunction(
    (re) =>
      new RegExp(re).test(
        document.querySelector('[data-testid="status-phase"]')?.textContent ?? "",
      ),
    want.source,
    { timeout, polling: 500 },
  );
}
/** Ready: the status line says "ready" and no message (cold start evaluated, RL step prepared). */
function waitReady(page: Page) {
  return page.waitForFunction(
    () =>
      document.querySelector('[data-testid="status-phase"]')?.textContent === "ready" &&
      !document.querySelector('[data-testid="status"] .muted'),
    null,
    { timeout: 900_000, polling: 500 },
  );
}
/** The overview's chart metric keys, in order. */
const overviewKeys = (page: Page) =>
  page.evaluate(() =>
    Array.from(document.querySelectorAll(".chart-grid.large [data-metric]")).map((e) =>
      e.getAttribute("data-metric"),
    ),
  );

describe("the lesson on a plain static host", () => {
  let outDir: string;
  let site: { url: string; close(): Promise<void> };
  let browser: Browser;

  beforeAll(async () => {
    ({ outDir, site, browser } = await openBuiltLab("lesson"));
  });

  afterAll(async () => {
    await closeBuiltLab({ outDir, site, browser });
  });

  it("trains a step without cross-origin isolation and says one thread", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors = collectErrors(page);
    const hash = encodeExperiment(
      parseExperiment({
        modelSize: "small",
        task: { hintRate: 0, traceSlipRate: 0 },
        variants: [{ name: "rlvr" }, { name: "grr" }],
        algorithm: { groupSize: 2, batchPrompts: 1, evalEvery: 1, steps: 1 },
        evalSize: 4,
      }),
    );
    await page.goto(`${site.url}#${hash}`);
    expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
    await waitReady(page);
    expect(await page.getByTestId("status-threads").textContent()).toBe(
      "threads: one (not cross-origin isolated)",
    );
    await page.getByRole("button", { name: "Train", exact: true }).click();
    await waitForPhase(page, /done/);
    for (const v of ["rlvr", "grr"])
      await expect
        .poll(() => page.getByTestId("chart-rcAcc").getAttribute(`data-points-${v}`))
        .toBe("2"); // steps 0 and 1
    expect(errors, errors.join("\n")).toEqual([]);
    await page.close();
  }, 1_200_000);

  it("starts every preset from the picker: the preset's experiment in the link, its overview charts, one step", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors = collectErrors(page);
    await page.goto(site.url);
    await waitReady(page);
    const picker = page.getByTestId("experiment-picker");
    expect(await picker.inputValue()).toBe("default");
    // The first pick by keyboard: Tab to the picker, arrow down to the next preset.
    for (let i = 0; i < 40; i++) {
      if (await picker.evaluate((el) => el === document.activeElement)) break;
      await page.keyboard.press("Tab");
    }
    expect(await picker.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press("ArrowDown");
    const seen: string[] = [];
    for (const [i, name] of PICKER_PRESETS.entries()) {
      if (i === 0) continue; // "default" is the page's start: trained below, last
      if (i > 1) await picker.selectOption(name);
      await expect.poll(() => picker.inputValue()).toBe(name);
      seen.push(name);
      await stepPreset(page, name);
    }
    await picker.selectOption("default");
    await stepPreset(page, "default");
    // With WebGPU, the preset's recording can be overlaid on the live run.
    await page.getByTestId("overlay-recording").click();
    await expect
      .poll(() => page.getByTestId("legend").locator(".legend-item.overlay").allTextContents())
      .toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            new RegExp(
              `^RLVR · recording of default · .*seeds ${JSON.parse(readFileSync(join(outDir, "recordings/default.json"), "utf8")).run.experiment.seeds.join(",")}`,
            ),
          ),
        ]),
      );
    expect(seen.length).toBe(PICKER_PRESETS.length - 1);
    expect(errors, errors.join("\n")).toEqual([]);
    await page.close();
  }, 3_600_000);

  it("plays the default recording without WebGPU: one line says why; play, pause and scrub move charts, guide and inspector", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors = collectErrors(page);
    await page.addInitScript(() => {
      Object.defineProperty(Navigator.prototype, "gpu", {
        get: () => undefined,
        configurable: true,
      });
    });
    await page.goto(site.url);
    await expect
      .poll(() => page.getByTestId("no-webgpu").textContent(), { timeout: 60_000 })
      .toMatch(
        /^This browser has no WebGPU, so this page cannot train here: it plays a recorded run instead \(\d seeds, made with npm run record\)\.$/,
      );
    await expect.poll(() => phaseText(page)).toBe("recording paused");
    expect(await page.getByRole("button", { name: "Train", exact: true }).count()).toBe(0);
    // Paused where the recording's curves part (the rule of src/ui/lib/recording-open.ts on the file's rows).
    const file = checkRecording(
      JSON.parse(readFileSync(join(outDir, "recordings/default.json"), "utf8")),
      "default",
    );
    const open = recordingOpenStep(file, overviewMetrics("default", file.run.experiment)).step;
    const step = async () => Number(await page.getByTestId("playback-step").textContent());
    await expect.poll(step).toBe(open);
    await expect.poll(() => overviewKeys(page)).toEqual([...presetEntry("default").overview]);
    // The credit chart plays from a recording whose rows carry the credit values (else the panel
    // says it was made before them), labelled the mechanism to read first; the overview, the effects.
    const hasCredit = Object.values(file.run.metrics.byVariant).some((r) =>
      r.train.some((x) => "credit/faithful-right/share" in x.values),
    );
    if (hasCredit)
      await expect
        .poll(() => page.getByTestId("credit-chart").getAttribute("data-lines"))
        .toMatch(/^[1-9]\d*$/);
    else await expect.poll(() => page.getByTestId("credit-missing").count()).toBe(1);
    expect(await page.getByTestId("credit-role").textContent()).toBe("mechanism · read this first");
    expect(await page.getByTestId("overview-role").textContent()).toBe(
      "effects · need many seeds and long runs",
    );
    expect(await page.getByTestId("guide-read-first").textContent()).toMatch(
      /^Read the credit chart .* first: .* The held-out curves are the effects; a difference there takes many seeds and long runs/,
    );
    // Scrubbing back to step 0 leaves one point per line and no callout; Play moves on from there.
    await page.getByTestId("playback-scrub").focus();
    await page.keyboard.press("Home");
    await expect.poll(step).toBe(0);
    await expect.poll(() => page.getByTestId("callout").count()).toBe(0);
    await page.getByTestId("playback-toggle").click();
    await expect.poll(step, { timeout: 30_000 }).toBeGreaterThan(0);
    await page.getByTestId("playback-toggle").click();
    await expect.poll(() => phaseText(page)).toBe("recording paused");
    // Scrub with the keyboard to the last recorded step.
    await page.getByTestId("playback-scrub").focus();
    await page.keyboard.press("End");
    expect(await step()).toBe(file.run.lastStep);
    // Every eval step of the recording is on the chart (the charts redraw a moment later).
    const evalSteps = new Set(file.run.metrics.byVariant.rlvr.eval.map((r) => r.step)).size;
    await expect
      .poll(() => page.getByTestId("chart-incR").getAttribute("data-points-rlvr"))
      .toBe(String(evalSteps));
    expect(await page.getByTestId("chart-incR").getAttribute("data-banded-rlvr")).toBe("1");
    // The guided view's callouts come from the recording; the first one's example opens in the inspector.
    await expect.poll(() => page.getByTestId("callout").count()).toBeGreaterThan(0);
    const example = page.getByTestId("callout-example").first();
    await example.click();
    await expect.poll(() => page.getByTestId("inspector").isVisible()).toBe(true);
    await expect
      .poll(() => page.locator('[data-testid="rollout-table"] tr[data-focused="1"]').count())
      .toBe(1);
    expect(errors, errors.join("\n")).toEqual([]);
    await page.close();
  }, 600_000);
});

/** After a pick: the link is the preset's, the overview its charts, and one step trains. */
async function stepPreset(page: Page, name: string): Promise<void> {
  const hash = await page.evaluate(() => location.hash);
  expect(decodePreset(hash).preset).toBe(name);
  const fromLink = decodeExperiment(hash);
  expect(fromLink.error).toBeNull();
  expect(fromLink.experiment).toEqual(presetExperiment(name));
  await waitReady(page);
  await page
    .getByRole("button", { name: "Step", exact: true })
    .and(page.getByTitle("Run exactly one RL step"))
    .click();
  await waitForPhase(page, /paused|done/);
  // The overview draws once there are rows: the cold start's eval runs after the first RL step.
  await expect.poll(() => overviewKeys(page)).toEqual([...presetEntry(name).overview]);
  const exp = presetExperiment(name);
  const chart = page.getByTestId(`chart-${presetEntry(name).overview[0]}`);
  for (const v of exp.variants.map((x) => x.name))
    await expect
      .poll(() => page.getByTestId("chart-step_time_ms").getAttribute(`data-points-${v}`), {
        timeout: 120_000,
      })
      .toBe("1");
  expect(await chart.count()).toBe(1);
}
