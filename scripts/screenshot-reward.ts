/**
 * A written reward on the page, from the built page in headless Chromium
 * (--enable-unsafe-webgpu: WebGPU on SwiftShader here):
 *   npm run screenshot:reward -- [--reward FILE] [--preset NAME] [--steps N] [--seed S]
 *                                [--multiple-choice] [--hint-rate R] [--trace-slip R] [--out PREFIX]
 * Opens a link whose experiment is preset NAME's with its variants replaced
 * by RLVR and the written reward of FILE (default the length bonus), seed S
 * and N RL steps; the code came with the link, so the page holds it until
 * the script presses Run in the Your reward card. It then presses Train,
 * waits for the run to end, and takes the guided view's reward-hacking
 * checks to PREFIX-checks.png and, through a length-drift finding's link to
 * its chart, the response-length chart to PREFIX-chart.png (the whole page
 * when no length-drift check fired). Prints one JSON line {"chart", "checks", "step",
 * "detections", "seconds"} ({"error"} on failure); `detections` are the
 * checks' texts as the page shows them.
 */
import { readCliFlags } from "../src/lib/cli-flags";
import { SCREENSHOT_REWARD_TABLE } from "../src/cli/script-flags";
import { readRewardFile } from "../src/server/reward-file";
import { parseExperiment } from "../src/settings/experiment";
import { presetExperiment } from "../src/settings/presets";
import { encodeLink } from "../src/ui/lib/url-state";
import { withBuiltPage } from "./bench/built-page";

async function main(): Promise<void> {
  const { flags } = readCliFlags(SCREENSHOT_REWARD_TABLE);
  const code = readRewardFile(flags.reward);
  const base = presetExperiment(flags.preset);
  const exp = parseExperiment({
    ...base,
    seed: flags.seed,
    task: {
      ...base.task,
      ...(flags["multiple-choice"] ? { multipleChoice: true } : {}),
      ...(flags["hint-rate"] !== undefined ? { hintRate: flags["hint-rate"] } : {}),
      ...(flags["trace-slip"] !== undefined ? { traceSlipRate: flags["trace-slip"] } : {}),
    },
    algorithm: { ...base.algorithm, steps: flags.steps },
    variants: [{ name: "rlvr" }, { name: "user", weights: { code } }],
  });
  const chart = `${flags.out}-chart.png`;
  const checks = `${flags.out}-checks.png`;
  const r = await withBuiltPage("index.html", async (url, browser) => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`${url}#${encodeLink(exp, null)}`);
    const t0 = Date.now();
    // The code came with the link: the card shows it held; Run lets training call it.
    await page.locator('[aria-controls="settings-drawer"]').click({ timeout: 120_000 });
    await page.getByTestId("reward-run").click({ timeout: 120_000 });
    await page.getByTestId("reward-held").waitFor({ state: "detached" });
    await page.locator('[aria-controls="settings-drawer"]').click();
    await page.getByRole("button", { name: "Train", exact: true }).click();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="status-phase"]')?.textContent === "done",
      null,
      { timeout: 3_600_000, polling: 1000 },
    );
    // Let the staggered charts catch up with the last rows before the pictures.
    await page.waitForTimeout(3000);
    const found = page.getByTestId("detectors");
    await found.scrollIntoViewIfNeeded();
    await found.screenshot({ path: checks });
    const detections = await found.getByTestId("detection").allTextContents();
    // The chart may sit in a closed group: a check's own link opens it and scrolls to it;
    // without a length finding the page is taken whole.
    const drift = found.locator('[data-detector="length-drift"]').first();
    let whole = true;
    if ((await drift.count()) > 0) {
      await drift.getByRole("button").click();
      await page.waitForTimeout(3000); // a chart draws once it is in view
      // Response length is in the Cost group under "More metrics": open it when closed.
      const cost = page.getByRole("button", { name: /^Cost \(/ });
      if ((await cost.count()) > 0) await cost.first().click();
      await page.waitForTimeout(3000);
      const shown = page.locator('figure[data-metric="response_length"]:visible').first();
      if ((await shown.count()) > 0) await shown.scrollIntoViewIfNeeded();
      await page.waitForTimeout(2000);
      if ((await shown.count()) > 0) {
        await shown.screenshot({ path: chart });
        whole = false;
      }
    }
    if (whole) await page.screenshot({ path: chart, fullPage: true });
    return {
      chart,
      checks,
      step: await page.getByTestId("status-step").textContent(),
      detections,
      seconds: Math.round((Date.now() - t0) / 1000),
    };
  });
  process.stdout.write(`${JSON.stringify(r)}\n`);
}

main().catch((e) => {
  process.stdout.write(`${JSON.stringify({ error: (e as Error).message })}\n`);
  process.exit(1);
});
