/**
 * What a user waits for on the page: builds the app, serves the production
 * build, opens it in headless Chromium (WebGPU; SwiftShader here), presses
 * Train on the default experiment (no URL hash: the embedded defaults) and
 * watches the charts for a fixed wall time. Prints ONE JSON line:
 *
 *   npm run bench:page -- [--minutes M] [--hash H] [--gap G]
 *   (flags, output and errors: the benchmark harness, scripts/bench/harness.ts)
 *
 * Keys:
 *   adapter            the page's WebGPU adapter (navigator.gpu)
 *   ready_s            seconds from opening the page to its "ready" status (Train is pressed then)
 *   first_train_s      seconds from the Train click to the first training point (reward_mean chart)
 *   first_eval_s       … to the first held-out point after step 0 (IncR chart)
 *   evals              every held-out point seen: {s, variant, step, incR, rcAcc}, in arrival order
 *   parted             the first eval step at which the first two variants' held-out IncR
 *                      or RC-Acc differ by at least G (default 0.05; lab choice), with the
 *                      time it arrived and both values; null if they never did within M minutes
 *   steps_done         the last RL step each variant reached
 * --minutes (default 15) is wall time after the click; --hash runs a shared
 * link's experiment instead of the defaults. The page is read through the
 * charts' data attributes (data-last-<variant> = "step:value"), as a user sees it;
 * `runPage` is also the chromium half of `npm run bench:rl`.
 * A figure, not a test: nothing here asserts a time.
 */
import { withBuiltPage } from "./built-page";
import { parseExperiment } from "../../src/settings/experiment";
import { decodeExperiment } from "../../src/ui/lib/url-state";
import { parseBenchFlags, runBench } from "./harness";

interface EvalPoint {
  s: number;
  variant: string;
  step: number;
  incR: number;
  rcAcc: number;
}

/** The RL step's cost metrics (src/settings/metric-table.ts) read per step from their charts. */
export const PHASE_KEYS = [
  "step_time_ms",
  "generate_ms",
  "reward_ms",
  "advantages_ms",
  "update_ms",
  "dispatches",
  "submits",
  "response_length",
] as const;

interface PageOptions {
  /** Wall time after the click, minutes. */
  minutes: number;
  /** URL hash of a shared link; absent: the embedded defaults. */
  hash?: string;
  /** Stop once every variant has a training point at this step (and its eval, if any). */
  untilStep?: number;
  /** Held-out IncR or RC-Acc difference that counts as parted (lab choice 0.05). */
  gap?: number;
}

interface PageResult {
  adapter: string;
  /** Seconds from opening the page to "ready" (loaded, cold start evaluated, RL step prepared). */
  readyS: number;
  groupSize: number;
  batchPrompts: number;
  firstTrainS: number | null;
  firstEvalS: number | null;
  parted: Record<string, unknown> | null;
  stepsDone: Record<string, number>;
  evals: EvalPoint[];
  trainRows: { variant: string; step: number; s: number; values: Record<string, number> }[];
}

/**
 * Opens the built page in headless Chromium, presses Train and watches the
 * charts until `minutes` pass (or `untilStep` is reached).
 * @throws Error without Chromium at /usr/bin/chromium or without a WebGPU adapter.
 */
export async function runPage(opts: PageOptions): Promise<PageResult> {
  const gap = opts.gap ?? 0.05;
  const hash = opts.hash !== undefined ? opts.hash.replace(/^#/, "") : "";
  const exp = hash ? decodeExperiment(hash).experiment : parseExperiment({});
  return withBuiltPage("index.html", async (url, browser) => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const tNav = Date.now();
    await page.goto(`${url}${hash ? `#${hash}` : ""}`);
    const adapter = await page.evaluate(async () => {
      const a = await navigator.gpu?.requestAdapter();
      return a ? `${a.info.vendor} ${a.info.architecture} ${a.info.description}`.trim() : null;
    });
    if (!adapter)
      throw new Error("Chromium found no WebGPU adapter (--enable-unsafe-webgpu, SwiftShader)");
    // Train is pressed once the page says "ready" with no message (checkpoint and digits
    // loaded, the cold start evaluated, the RL step prepared): what a user sees first.
    await page.waitForFunction(
      () =>
        document.querySelector('[data-testid="status-phase"]')?.textContent === "ready" &&
        !document.querySelector('[data-testid="status"] .muted'),
      null,
      { timeout: 600_000, polling: 200 },
    );
    const readyS = Math.round((Date.now() - tNav) / 100) / 10;
    await page.getByRole("button", { name: "Train", exact: true }).click();
    const t0 = Date.now();
    const seconds = () => Math.round((Date.now() - t0) / 100) / 10;
    const r: PageResult = {
      adapter,
      readyS,
      groupSize: exp.algorithm.groupSize,
      batchPrompts: exp.algorithm.batchPrompts,
      firstTrainS: null,
      firstEvalS: null,
      parted: null,
      stepsDone: {},
      evals: [],
      trainRows: [],
    };
    const seen = new Set<string>();
    const trainAt = new Map<
      string,
      { variant: string; step: number; s: number; values: Record<string, number> }
    >();
    const byStep = new Map<number, Map<string, EvalPoint>>();
    const charts = ["incR", "rcAcc", ...PHASE_KEYS];
    for (;;) {
      const snap: Record<string, Record<string, string>> = await page.evaluate((ids) => {
        const out: Record<string, Record<string, string>> = {};
        for (const id of ids) {
          const el = document.querySelector(`[data-testid="chart-${id}"]`);
          const own: Record<string, string> = {};
          if (el)
            for (const a of Array.from(el.attributes))
              if (a.name.startsWith("data-last-")) own[a.name.slice(10)] = a.value;
          out[id] = own;
        }
        return out;
      }, charts);
      const s = seconds();
      // Training points: one row per (variant, step), filled in as its charts report it.
      for (const k of PHASE_KEYS)
        for (const [v, last] of Object.entries(snap[k] ?? {})) {
          const [step, value] = last.split(":").map(Number);
          const key = `${v}:${step}`;
          const row = trainAt.get(key) ?? { variant: v, step, s, values: {} };
          row.values[k] = value;
          trainAt.set(key, row);
          r.stepsDone[v] = Math.max(r.stepsDone[v] ?? 0, step);
          r.firstTrainS ??= s;
        }
      for (const [v, last] of Object.entries(snap.incR ?? {})) {
        const [step, incR] = last.split(":").map(Number);
        const rc = snap.rcAcc?.[v]?.split(":").map(Number);
        if (!rc || rc[0] !== step || seen.has(`${v}:${step}`)) continue;
        seen.add(`${v}:${step}`);
        const point = { s, variant: v, step, incR, rcAcc: rc[1] };
        r.evals.push(point);
        if (step > 0) r.firstEvalS ??= s;
        const at = byStep.get(step) ?? new Map<string, EvalPoint>();
        at.set(v, point);
        byStep.set(step, at);
        const [a, b] = [...at.values()];
        if (!r.parted && step > 0 && a && b) {
          const dInc = Math.abs(a.incR - b.incR);
          const dRc = Math.abs(a.rcAcc - b.rcAcc);
          if (dInc >= gap || dRc >= gap)
            r.parted = {
              step,
              s,
              [a.variant]: { incR: a.incR, rcAcc: a.rcAcc },
              [b.variant]: { incR: b.incR, rcAcc: b.rcAcc },
            };
        }
      }
      const done = Object.values(r.stepsDone);
      if (
        opts.untilStep !== undefined &&
        done.length > 0 &&
        done.every((d) => d >= opts.untilStep!)
      )
        break;
      if (Date.now() - t0 >= opts.minutes * 60_000) break;
      await new Promise((res) => setTimeout(res, 500));
    }
    await page.close();
    r.trainRows = [...trainAt.values()].sort((a, b) => a.step - b.step);
    return r;
  });
}

async function main(): Promise<Record<string, unknown>> {
  const flags = parseBenchFlags(process.argv.slice(2), {
    minutes: { kind: "number", above: 0, max: 120, default: 15, help: "wall time after Train" },
    hash: { kind: "string", help: "a shared link's URL hash" },
    gap: { kind: "number", above: 0, max: 1, default: 0.05, help: "parting difference" },
  });
  const minutes = flags.minutes;
  const gap = flags.gap;
  if (!(gap < 1)) throw new Error(`--gap must be in (0, 1), got ${gap}`);
  const r = await runPage({
    minutes,
    gap,
    hash: flags.hash,
  });
  return {
    environment: "chromium",
    adapter: r.adapter,
    minutes,
    gap,
    ready_s: r.readyS,
    first_train_s: r.firstTrainS,
    first_eval_s: r.firstEvalS,
    parted: r.parted,
    steps_done: r.stepsDone,
    evals: r.evals,
  };
}

// Run as a script (npm run bench:page), not when bench:rl imports runPage.
if (process.argv[1]?.endsWith("bench/page.ts")) runBench("bench-page", main);
