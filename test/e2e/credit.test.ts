// The credit view end to end in headless Chromium (WebGPU on SwiftShader), on
// the production build served by a plain static server:
//   1. every preset of the Experiment picker opens with the credit chart
//      ("what each variant pays for") whole on the first screen (1400 × 1000,
//      not scrolled); after one RL step it has, in share of rollouts, one line
//      per variant and rollout class, and in mean advantage one line per
//      variant and class that occurred at that step (a share above 0 in the
//      step's own `credit/<class>/share` value, read from its chart under
//      "More metrics");
//   2. the token view opens from the inspector (the smoke preset, the
//      smallest), its head naming the rollout's class: a step-1 rollout's tokens
//      under its variant and, the group being shared at step 1, under
//      another variant beside it, and a token's objective terms on a click.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { encodeLink } from "../../src/ui/lib/url-state";
import { presetExperiment, PICKER_PRESETS } from "../../src/settings/presets";
import { ROLLOUT_CLASSES } from "../../src/settings/credit-table";
import { closeBuiltLab, openBuiltLab } from "./built-lab";

function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  return errors;
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

/** One RL step (the Step button), then paused. */
async function stepOnce(page: Page): Promise<void> {
  await page
    .getByRole("button", { name: "Step", exact: true })
    .and(page.getByTitle("Run exactly one RL step"))
    .click();
  await page.waitForFunction(
    () =>
      /paused|done/.test(document.querySelector('[data-testid="status-phase"]')?.textContent ?? ""),
    null,
    { timeout: 900_000, polling: 500 },
  );
}

/** The credit panel lies wholly inside the first screen (page not scrolled). */
async function onFirstScreen(page: Page): Promise<boolean> {
  const box = await page.getByTestId("credit-panel").boundingBox();
  const scrolled = await page.evaluate(() => window.scrollY);
  return box !== null && scrolled === 0 && box.y >= 0 && box.y + box.height <= 1000;
}

/** The step-1 share of class `cls` for `variant`, from its chart's last point ("1:0.25"). */
async function share(page: Page, variant: string, cls: string): Promise<number> {
  const last = await page
    .getByTestId(`chart-credit/${cls}/share`)
    .getAttribute(`data-last-${variant}`);
  if (!last) throw new Error(`no share of ${cls} for ${variant}`);
  const [step, value] = last.split(":");
  expect(step).toBe("1");
  return Number(value);
}

describe("the credit view", () => {
  let outDir: string;
  let site: { url: string; close(): Promise<void> };
  let browser: Browser;

  beforeAll(async () => {
    ({ outDir, site, browser } = await openBuiltLab("credit"));
  });

  afterAll(async () => {
    await closeBuiltLab({ outDir, site, browser });
  });

  for (const name of PICKER_PRESETS)
    it(`${name}: the credit chart is on the first screen, one line per variant and class after one step`, async () => {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const errors = collectErrors(page);
      const exp = presetExperiment(name);
      await page.goto(`${site.url}#${encodeLink(exp, name)}`);
      await waitReady(page);
      expect(await onFirstScreen(page)).toBe(true);
      await stepOnce(page);
      const variants = exp.variants.map((v) => v.name);
      await page.getByTestId("credit-measure-share").click();
      const chart = page.getByTestId("credit-chart");
      await expect
        .poll(() => chart.getAttribute("data-lines"), { timeout: 60_000 })
        .toBe(String(variants.length * ROLLOUT_CLASSES.length));
      for (const v of variants)
        for (const c of ROLLOUT_CLASSES)
          expect(await chart.getAttribute(`data-line-${v}-${c.key}`)).toBe("1");
      // Mean advantage: a line exactly for the classes that occurred at step 1.
      const occurred: string[] = [];
      for (const v of variants) {
        let total = 0;
        for (const c of ROLLOUT_CLASSES) {
          const s = await share(page, v, c.key);
          total += s;
          if (s > 0) occurred.push(`${v}-${c.key}`);
        }
        expect(total).toBeCloseTo(1, 6);
      }
      await page.getByTestId("credit-measure-advantage").click();
      await expect.poll(() => chart.getAttribute("data-lines")).toBe(String(occurred.length));
      for (const key of occurred) expect(await chart.getAttribute(`data-line-${key}`)).toBe("1");
      await page.evaluate(() => window.scrollTo(0, 0));
      expect(await onFirstScreen(page)).toBe(true);
      expect(errors, errors.join("\n")).toEqual([]);
      await page.close();
    }, 1_200_000);

  it("the token view opens from the inspector, beside the same rollout under the other variant at step 1", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors = collectErrors(page);
    const exp = presetExperiment("smoke");
    await page.goto(`${site.url}#${encodeLink(exp, "smoke")}`);
    await waitReady(page);
    await stepOnce(page);
    await tokenView(
      page,
      exp.variants.map((v) => v.name),
    );
    expect(errors, errors.join("\n")).toEqual([]);
    await page.close();
  }, 1_200_000);
});

/** The inspector's token view of the first step-1 rollout, beside the same rollout under another variant. */
async function tokenView(page: Page, variants: readonly string[]): Promise<void> {
  await page.getByRole("button", { name: "Inspect rollouts" }).click();
  await page.getByTestId("open-tokens").first().click();
  const view = page.getByTestId("token-view");
  await expect.poll(() => view.isVisible()).toBe(true);
  // The head names the opened rollout's class (its table row's) and the ground truth.
  const key = await page.locator("tr[data-class]").first().getAttribute("data-class");
  const label = ROLLOUT_CLASSES.find((c) => c.key === key)?.label;
  expect(label).toBeDefined();
  expect(await view.getByTestId("token-view-class").textContent()).toMatch(
    new RegExp(`^ · ${label} \\(.*; ground truth .+\\)$`),
  );
  const [a, b] = variants;
  const row = page.getByTestId(`token-row-${a}`);
  await expect.poll(() => row.locator(".token").count(), { timeout: 120_000 }).toBeGreaterThan(0);
  const twin = page.getByTestId(`token-row-${b}`);
  await expect
    .poll(() => twin.locator(".token").count(), { timeout: 120_000 })
    .toBe(await row.locator(".token").count());
  // Every token carries its weight; a click shows the objective's terms under both variants.
  const coefs = await row
    .locator(".token")
    .evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-coef"))));
  expect(coefs.every((c) => Number.isFinite(c))).toBe(true);
  await row.locator(".token").first().click();
  await expect.poll(() => page.getByTestId("objective-terms").count()).toBe(2);
}
