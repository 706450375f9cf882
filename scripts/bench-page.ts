/**
 * What a user waits for on the page: builds the app, serves the production
 * build, opens it in headless Chromium (WebGPU; SwiftShader here), presses
 * Train on the default experiment (no URL hash: the embedded defaults) and
 * watches the charts for a fixed wall time. Prints ONE JSON line:
 *
 *   npm run bench:page -- [--minutes M] [--hash H] [--gap G]
 *
 * Keys:
 *   adapter            the page's WebGPU adapter (navigator.gpu)
 *   first_train_s      seconds from the Train click to the first training point (reward_mean chart)
 *   first_eval_s       … to the first held-out point after step 0 (IncR chart)
 *   evals              every held-out point seen: {s, variant, step, incR, rcAcc}, in arrival order
 *   parted             the first eval step at which the first two variants' held-out IncR
 *                      or RC-Acc differ by at least G (default 0.05; lab choice), with the
 *                      time it arrived and both values; null if they never did within M minutes
 *   steps_done         the last RL step each variant reached
 * --minutes (default 15) is wall time after the click; --hash runs a shared
 * link's experiment instead of the defaults. The page is read through the
 * charts' data attributes (data-last-<variant> = "step:value"), as a user sees it.
 * A figure, not a test: nothing here asserts a time.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build, preview } from "vite";
import { chromium } from "playwright-core";
import { parseFlags } from "../src/cli/node-run";

const ROOT = resolve(import.meta.dirname, "..");
const CHROMIUM = "/usr/bin/chromium";

interface EvalPoint {
  s: number;
  variant: string;
  step: number;
  incR: number;
  rcAcc: number;
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2), {
    minutes: "number",
    hash: "string",
    gap: "number",
  });
  const minutes = Number(flags.minutes ?? 15);
  if (!(minutes > 0 && minutes <= 120))
    throw new Error(`--minutes must be in (0, 120], got ${minutes}`);
  const gap = Number(flags.gap ?? 0.05);
  if (!(gap > 0 && gap < 1)) throw new Error(`--gap must be in (0, 1), got ${gap}`);
  if (!existsSync(CHROMIUM))
    throw new Error(
      `No Chromium at ${CHROMIUM}: install Debian's chromium package, or run 'bash scripts/ensure-system-deps.sh'`,
    );
  const outDir = mkdtempSync(join(tmpdir(), "reward-lab-bench-page-"));
  await build({ root: ROOT, logLevel: "error", build: { outDir, emptyOutDir: true } });
  const server = await preview({
    root: ROOT,
    logLevel: "error",
    build: { outDir },
    preview: { port: 0, host: "127.0.0.1", strictPort: false },
  });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--enable-unsafe-webgpu", "--no-sandbox", "--no-first-run"],
  });
  try {
    const address = server.httpServer.address();
    if (!address || typeof address === "string") throw new Error("preview server has no port");
    const hash = flags.hash !== undefined ? `#${String(flags.hash).replace(/^#/, "")}` : "";
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`http://127.0.0.1:${address.port}/${hash}`);
    const adapter = await page.evaluate(async () => {
      const a = await navigator.gpu?.requestAdapter();
      return a ? `${a.info.vendor} ${a.info.architecture} ${a.info.description}`.trim() : null;
    });
    if (!adapter)
      throw new Error("Chromium found no WebGPU adapter (--enable-unsafe-webgpu, SwiftShader)");
    await page.getByRole("button", { name: "Train", exact: true }).click();
    const t0 = Date.now();
    const seconds = () => Math.round((Date.now() - t0) / 100) / 10;
    const evals: EvalPoint[] = [];
    const seen = new Set<string>();
    let firstTrain: number | null = null;
    let firstEval: number | null = null;
    let parted: Record<string, unknown> | null = null;
    const stepsDone: Record<string, number> = {};
    const byStep = new Map<number, Map<string, EvalPoint>>();
    while (Date.now() - t0 < minutes * 60_000) {
      const snap = await page.evaluate(() => {
        const read = (id: string) => {
          const el = document.querySelector(`[data-testid="chart-${id}"]`);
          const out: Record<string, string> = {};
          if (!el) return out;
          for (const a of Array.from(el.attributes))
            if (a.name.startsWith("data-last-")) out[a.name.slice(10)] = a.value;
          return out;
        };
        return { reward: read("reward_mean"), incR: read("incR"), rcAcc: read("rcAcc") };
      });
      const s = seconds();
      for (const [v, last] of Object.entries(snap.reward)) {
        stepsDone[v] = Number(last.split(":")[0]);
        if (firstTrain === null) firstTrain = s;
      }
      for (const [v, last] of Object.entries(snap.incR)) {
        const [step, incR] = last.split(":").map(Number);
        const rc = snap.rcAcc[v]?.split(":").map(Number);
        if (!rc || rc[0] !== step || seen.has(`${v}:${step}`)) continue;
        seen.add(`${v}:${step}`);
        const point = { s, variant: v, step, incR, rcAcc: rc[1] };
        evals.push(point);
        if (step > 0 && firstEval === null) firstEval = s;
        const at = byStep.get(step) ?? new Map<string, EvalPoint>();
        at.set(v, point);
        byStep.set(step, at);
        const [a, b] = [...at.values()];
        if (!parted && step > 0 && a && b) {
          const dInc = Math.abs(a.incR - b.incR);
          const dRc = Math.abs(a.rcAcc - b.rcAcc);
          if (dInc >= gap || dRc >= gap)
            parted = {
              step,
              s,
              [a.variant]: { incR: a.incR, rcAcc: a.rcAcc },
              [b.variant]: { incR: b.incR, rcAcc: b.rcAcc },
            };
        }
      }
      await new Promise((r) => setTimeout(r, 2000));
    }
    await page.close();
    process.stdout.write(
      `${JSON.stringify({ environment: "chromium", adapter, minutes, gap, first_train_s: firstTrain, first_eval_s: firstEval, parted, steps_done: stepsDone, evals })}\n`,
    );
  } finally {
    await browser.close();
    await new Promise<void>((r) => server.httpServer.close(() => r()));
    rmSync(outDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stdout.write(`${JSON.stringify({ error: (e as Error).message })}\n`);
  process.exit(1);
});
