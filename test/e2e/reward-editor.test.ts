// The written reward in headless Chromium on the production build:
//   1. a link that carries a written reward shows its code in the Your reward
//      card's editor and holds it: Train says why and starts nothing until
//      the user presses Run;
//   2. the built reward worker runs the code in its QuickJS sandbox (the wasm
//      file served by Vite): a reward is scored, and `fetch` in the code is
//      refused with its message and line.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { encodeExperiment } from "../../src/ui/lib/url-state";
import { DEFAULT_EXPERIMENT, VariantSchema } from "../../src/settings/experiment";
import { createTaskGenerator } from "../../src/tasks/index";
import { scoringPrompt } from "../../src/rl/reward-contract";
import { closeBuiltLab, openBuiltLab } from "./built-lab";

const CODE = "// from a link\nfunction reward(group) {\n  return group.rollouts.map(() => 1);\n}\n";

describe("the written reward in the browser", () => {
  let outDir: string;
  let site: { url: string; close(): Promise<void> };
  let browser: Browser;

  beforeAll(async () => {
    ({ outDir, site, browser } = await openBuiltLab("editor"));
  }, 300_000);
  afterAll(async () => {
    await closeBuiltLab({ outDir, site, browser });
  });

  it("code in a link is shown and held until Run", async () => {
    const exp = {
      ...DEFAULT_EXPERIMENT,
      variants: [
        VariantSchema.parse({ name: "rlvr" }),
        VariantSchema.parse({ name: "user", weights: { code: CODE } }),
      ],
    };
    const page = await browser.newPage();
    await page.goto(`${site.url}#${encodeExperiment(exp)}`);
    await page.locator('[aria-controls="settings-drawer"]').click({ timeout: 60_000 });
    const editor = page.getByTestId("reward-editor");
    await editor.waitFor({ timeout: 60_000 });
    expect(await editor.locator(".cm-content").textContent()).toContain("// from a link");
    await page.getByTestId("reward-held").waitFor();
    await page.getByRole("button", { name: "Train", exact: true }).click();
    await page
      .getByTestId("error")
      .filter({ hasText: "came with the link and has not run" })
      .waitFor();
    expect(await page.getByTestId("status-phase").textContent()).not.toMatch(/training|rl/i);
    await page.getByTestId("reward-run").click();
    await page.getByTestId("reward-held").waitFor({ state: "detached" });
    await page.close();
  }, 120_000);

  it("the built reward worker scores in its sandbox and refuses fetch", async () => {
    const worker = readdirSync(join(outDir, "assets")).find((f) =>
      /^reward\.worker-.*\.js$/.test(f),
    );
    expect(worker).toBeDefined();
    const prompt = scoringPrompt(
      createTaskGenerator({ family: "shapes", numSteps: 2 }).evalSet({ size: 1 })[0],
    );
    const request = (code: string) => ({
      variant: VariantSchema.parse({ name: "user", weights: { code } }),
      prompts: [prompt],
      texts: [[prompt.sftTarget, "no answer"]],
      seed: 1,
    });
    const page = await browser.newPage();
    await page.goto(site.url);
    const replies = await page.evaluate(
      async ({ url, reqs }) => {
        const w = new Worker(url, { type: "module" });
        const out: unknown[] = [];
        for (const [id, request] of reqs.entries())
          out.push(
            await new Promise((done) => {
              w.onmessage = (ev) => done(ev.data);
              w.postMessage({ type: "score", id, request });
            }),
          );
        w.terminate();
        return out;
      },
      {
        url: `${site.url}assets/${worker}`,
        reqs: [
          request(
            "function reward(g) {\n  return g.rollouts.map((r) => r.correct + r.strictFormat);\n}",
          ),
          request("function reward(g) {\n  fetch('/');\n}"),
        ],
      },
    );
    const [ok, refused] = replies as {
      type: string;
      response?: { groups: { rollouts: { total: number }[] }[] };
      message?: string;
    }[];
    expect(ok.type).toBe("scored");
    expect(ok.response!.groups[0].rollouts.map((r) => r.total)).toEqual([2, 0]);
    expect(refused.type).toBe("error");
    expect(refused.message).toMatch(/ReferenceError at line 2: 'fetch' is not defined/);
    await page.close();
  }, 120_000);
});
