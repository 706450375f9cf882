// The length bonus gamed on the page, and the check that says so (headless
// Chromium, production build): a link whose written reward is "answer only"
// (held, as link code is), the Length bonus example clicked in the Your
// reward card (a shipped example runs at once), Train: 60 RL steps of RLVR
// and the bonus on the plain multiple-choice cold start, seed 601 (the seed
// of docs/reward-spec.md §8.3, where the CLI and the page gave these same
// figures). When the run ends, the reward-hacking checks name the written
// reward's length drift with the run's own numbers, and no length drift for
// RLVR, whose rollouts kept their 42 tokens.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { parseExperiment } from "../../src/settings/experiment";
import { presetExperiment } from "../../src/settings/presets";
import { encodeLink } from "../../src/ui/lib/url-state";
import { closeBuiltLab, openBuiltLab, ROOT } from "./built-lab";

describe("a length bonus on the page", () => {
  let outDir: string;
  let site: { url: string; close(): Promise<void> };
  let browser: Browser;

  beforeAll(async () => {
    ({ outDir, site, browser } = await openBuiltLab("length"));
  }, 300_000);
  afterAll(async () => {
    await closeBuiltLab({ outDir, site, browser });
  });

  it("is gamed in 60 steps of seed 601 and the length-drift check names it, not RLVR", async () => {
    const smoke = presetExperiment("smoke");
    const answerOnly = readFileSync(join(ROOT, "examples/rewards/answer-only.js"), "utf8");
    const exp = parseExperiment({
      ...smoke,
      seed: 601,
      task: { ...smoke.task, multipleChoice: true, hintRate: 0, traceSlipRate: 0 },
      algorithm: { ...smoke.algorithm, steps: 60, evalEvery: 20 },
      variants: [{ name: "rlvr" }, { name: "user", weights: { code: answerOnly } }],
    });
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${site.url}#${encodeLink(exp, null)}`);
    await page.locator('[aria-controls="settings-drawer"]').click({ timeout: 120_000 });
    await expect.poll(() => page.getByTestId("reward-held").count()).toBe(1);
    // One click: the shipped example replaces the held code and runs.
    await page.getByTestId("reward-example-length-bonus").click();
    await page.getByTestId("reward-held").waitFor({ state: "detached" });
    await page.locator('[aria-controls="settings-drawer"]').click();
    await page.getByRole("button", { name: "Train", exact: true }).click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="status-phase"]')?.textContent === "done",
      null,
      { timeout: 1_800_000, polling: 1000 },
    );
    const found = page.getByTestId("detectors");
    const drift = found.locator('[data-detector="length-drift"]');
    await expect.poll(() => drift.count(), { timeout: 30_000 }).toBe(1);
    const text = await drift.first().textContent();
    expect(text).toContain(
      "Your reward's rollouts grew from 42.00 to 47.50 tokens on average (+13 %) between its first and last 3 steps",
    );
    expect(await found.textContent()).not.toMatch(/RLVR's rollouts (grew|shrank)/);
    expect(errors).toEqual([]);
    await page.close();
  }, 2_400_000);
});
