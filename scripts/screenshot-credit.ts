/**
 * The credit view's screenshots, from the built page in headless Chromium
 * (--enable-unsafe-webgpu: WebGPU on SwiftShader here):
 *   npm run screenshot:credit -- --preset NAME [--steps N] [--seeds S1,…] [--eval-size N] [--out FILE]
 *                                [--tokens FILE] [--class KEY] [--beside VARIANT]
 * Opens preset NAME (the picker's link; --seeds, --eval-size: those instead of the preset's), presses
 * Step N times (default 5) and takes the credit chart ("what each variant
 * pays for", the element only) to --out (default docs/credit-NAME.png; with
 * --tokens only when --out is given). With --tokens, it then opens the
 * inspector on the first variant, finds from step 1 on, over every kept
 * group of a step (one per seed), the first rollout of class --class
 * (default flawed-right), opens its token view (beside --beside, default the
 * preset's second variant, where the group is shared: step 1), clicks its
 * last token and takes the token view to FILE. Prints one JSON line
 * {"out", "tokens", "found": {step, prompt, rollout}, "beside", "step",
 * "seconds"} ({"error"} on failure).
 */
import { readCliFlags } from "../src/lib/cli-flags";
import { SCREENSHOT_CREDIT_TABLE } from "../src/cli/script-flags";
import { encodeLink } from "../src/ui/lib/url-state";
import { presetExperiment } from "../src/settings/presets";
import { parseExperiment } from "../src/settings/experiment";
import { variantLabel as labelOf } from "../src/settings/variant-meta";
import { parseSeedList } from "../src/cli/node-run";
import { withBuiltPage } from "./bench/built-page";

async function main(): Promise<void> {
  const { flags } = readCliFlags(SCREENSHOT_CREDIT_TABLE);
  const preset = flags.preset;
  const exp = parseExperiment({
    ...presetExperiment(preset),
    ...(flags.seeds !== undefined ? { seeds: parseSeedList("seeds", String(flags.seeds)) } : {}),
    ...(flags["eval-size"] !== undefined ? { evalSize: flags["eval-size"] } : {}),
  });
  const steps = flags.steps;
  const tokens = flags.tokens ?? null;
  // With --tokens the chart is taken only when --out names a file.
  const out = flags.out ?? (tokens ? null : `docs/credit-${preset}.png`);
  const cls = flags.class;
  const variants = exp.variants.map((v) => v.name);
  const beside = String(flags.beside ?? variants[1] ?? variants[0]);
  const r = await withBuiltPage("index.html", async (url, browser) => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`${url}#${encodeLink(exp, preset)}`);
    const t0 = Date.now();
    const phase = () => page.getByTestId("status-phase").textContent();
    await page.waitForFunction(
      () =>
        document.querySelector('[data-testid="status-phase"]')?.textContent === "ready" &&
        !document.querySelector('[data-testid="status"] .muted'),
      null,
      { timeout: 900_000, polling: 500 },
    );
    const step = page
      .getByRole("button", { name: "Step", exact: true })
      .and(page.getByTitle("Run exactly one RL step"));
    for (let i = 0; i < steps; i++) {
      await step.click();
      await page.waitForFunction(
        () =>
          /paused|done/.test(
            document.querySelector('[data-testid="status-phase"]')?.textContent ?? "",
          ),
        null,
        { timeout: 900_000, polling: 500 },
      );
    }
    // Let the staggered charts catch up with the last rows before the picture.
    await page.waitForTimeout(3000);
    if (out) await page.getByTestId("credit-panel").screenshot({ path: out });
    let tokenOut: string | null = null;
    let found: { step: number; prompt: number; rollout: number } | null = null;
    let besideShown: string | null = null;
    if (tokens) {
      await page.getByRole("button", { name: "Inspect rollouts" }).click();
      const inspector = page.getByTestId("inspector");
      await inspector.getByRole("tab", { name: labelOf(variants[0]) }).click();
      // From the first kept step (step 1, where the group is shared) on, every kept
      // group of the step (one per seed): the first with a rollout of the class.
      const slider = inspector.getByLabel("Sample step");
      await slider.focus();
      await page.keyboard.press("Home");
      const chips = inspector
        .getByRole("toolbar", { name: "Prompt in this step" })
        .getByRole("button");
      for (let i = 0; i < steps && !found; i++) {
        if (i > 0) {
          await slider.focus();
          await page.keyboard.press("ArrowRight");
        }
        const n = Math.max(1, await chips.count());
        for (let p = 0; p < n && !found; p++) {
          if ((await chips.count()) > 0) await chips.nth(p).click();
          const rows = inspector.locator("tr[data-class]");
          const classes = await rows.evaluateAll((els) =>
            els.map((e) => e.getAttribute("data-class")),
          );
          const k = classes.indexOf(cls);
          if (k < 0) continue;
          await rows.nth(k).getByTestId("open-tokens").click();
          const label = await inspector.locator('label[for="inspector-step"]').textContent();
          found = {
            step: Number(/Step (\d+)/.exec(label ?? "")?.[1] ?? Number.NaN),
            prompt: p + 1,
            rollout: k + 1,
          };
        }
      }
      if (!found) throw new Error(`no ${cls} rollout in the kept groups of ${variants[0]}`);
      const view = page.getByTestId("token-view");
      const chooser = view.getByRole("toolbar", { name: "Compare with" });
      if ((await chooser.count()) > 0)
        await chooser.getByRole("button", { name: labelOf(beside) }).click();
      await view
        .getByTestId(`token-row-${variants[0]}`)
        .locator(".token")
        .first()
        .waitFor({ timeout: 300_000 });
      // Beside it where the group is shared (step 1).
      if (
        (await view.getByTestId(`token-row-${beside}`).count()) > 0 ||
        (await view.getByTestId("token-view-pending").count()) > 0
      ) {
        await view
          .getByTestId(`token-row-${beside}`)
          .locator(".token")
          .first()
          .waitFor({ timeout: 300_000 })
          .catch(() => undefined);
        if ((await view.getByTestId(`token-row-${beside}`).count()) > 0) besideShown = beside;
      }
      const first = view.getByTestId(`token-row-${variants[0]}`).locator(".token");
      // The answer token: the last one of the rollout.
      await first.nth((await first.count()) - 1).click();
      await page.waitForTimeout(500);
      await view.screenshot({ path: tokens });
      tokenOut = tokens;
    }
    return {
      out,
      tokens: tokenOut,
      found,
      beside: besideShown,
      step: await page.getByTestId("status-step").textContent(),
      phase: await phase(),
      seconds: Math.round((Date.now() - t0) / 1000),
    };
  });
  process.stdout.write(`${JSON.stringify(r)}\n`);
}

main().catch((e) => {
  process.stdout.write(`${JSON.stringify({ error: (e as Error).message })}\n`);
  process.exit(1);
});
