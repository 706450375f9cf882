/**
 * RL-step benchmark: what one RL step of the default experiment costs, where
 * the time goes, in Node and in the page. Prints ONE JSON line per environment:
 *
 *   npm run bench:rl -- [--steps N] [--env node,chromium] [--page-minutes M] [--full-text] [--all-rows] [--unshared] [--passes] [--previous FILE]
 *   (flags, output and errors: the benchmark harness, scripts/bench/harness.ts)
 *
 * --passes (node only): the multiple-choice task without hints, RLVR, SCS and
 * ACRE side by side on the same prompts; the line then has `extra_passes`:
 * per variant with generation passes, passes_ms (SCS's continuations, ACRE's
 * re-ask) and its step and passes as ratios to RLVR's plain step (same run).
 *
 * --full-text (node only): the update runs every text column, the path before
 * the text window (LabEngine.trimText = false), for a before/after on one machine.
 *
 * --all-rows (node only): the update's last block, final layer norm and LM
 * head run on every row, the path before the compacted last layer
 * (LabEngine.compactRows = false), for a before/after on one machine.
 *
 * --previous FILE: the lines an earlier build printed (run just before, on
 * this machine, e.g. from a worktree of the previous commit); each line then
 * gets `ratio_to_previous`: the previous step_ms (and cpu_ms_per_step, and
 * each variant's phase medians) over this build's, per environment.
 *
 * --unshared (node only): the update runs every rollout on its own, the path
 * before the shared prefix (LabEngine.sharePrefix = false: a group's image
 * and prompt computed G times), for a before/after on one machine.
 *
 * Keys (every *_ms a median over N ≥ 5 steps after one warm-up step, per variant):
 *   environment      "node" (npm `webgpu`, Dawn) or "chromium" (the built page, trainer worker)
 *   adapter          the WebGPU adapter (SwiftShader = CPU)
 *   experiment       model size, variants, G, prompts per step, eval size (the defaults;
 *                    the small model on a CPU adapter, as the page picks it)
 *   variants.<name>  step_ms, generate_ms, reward_ms, advantages_ms, update_ms,
 *                    dispatches and submits per step, response_length (tokens),
 *                    rollout_tokens_per_s (G · prompts · mean response length / generate_ms)
 *   step_ms          one RL step of the experiment: the variants' step medians summed
 *   cpu_ms_per_step  node only: CPU time of the process (all threads, SwiftShader's
 *                    included) over the N timed steps, per step: the figure that
 *                    other jobs on the machine distort least (wall times scale with
 *                    the CPU left to SwiftShader)
 *   eval_ms          node only: one held-out eval of every variant, median of 3 (the page's
 *                    charts are redrawn on a throttle, so they cannot time an eval; its
 *                    first_eval_s is the user's view of it)
 *   click_s          chromium only: seconds from opening the page to the Train click (the
 *                    moment the button is enabled, bench:page's click_at "enabled")
 *   first_train_s, first_eval_s   chromium only: seconds from pressing Train to the first
 *                    training point and to the first held-out point after step 0
 * The phase times are the RL step's own metrics (src/settings/metric-table.ts, group
 * "cost"), read from the run's rows in Node and from the charts in the page.
 * A figure, not a test: nothing here asserts a time.
 */
import { consoleSink, loadShippedCheckpoint, mnistFor, nodeContext } from "../../src/cli/node-run";
import { parseExperiment } from "../../src/settings/experiment";
import { inProcessScorer } from "../../src/rl/reward-contract";
import { LabRun } from "../../src/run/lab-run";
import type { MetricRow } from "../../src/run/run-types";
import { readFileSync } from "node:fs";
import { runPage, PHASE_KEYS } from "./page";
import { median, parseBenchFlags, runBench } from "./harness";

const round = (x: number) => Math.round(x * 10) / 10;

/** Per-variant medians of the phase metrics over train rows after the warm-up step. */
function phaseMedians(
  rows: Pick<MetricRow, "variant" | "step" | "values">[],
  groupSize: number,
  batchPrompts: number,
): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  const variants = [...new Set(rows.map((r) => r.variant))];
  for (const v of variants) {
    const own = rows.filter((r) => r.variant === v && r.step > 1);
    const m: Record<string, number> = { steps: own.length };
    for (const k of [...PHASE_KEYS, "passes_ms"]) {
      const xs = own.map((r) => r.values[k]).filter((x): x is number => Number.isFinite(x));
      if (xs.length) m[k] = round(median(xs));
    }
    if (m.generate_ms && m.response_length)
      m.rollout_tokens_per_s = Math.round(
        (groupSize * batchPrompts * m.response_length) / (m.generate_ms / 1000),
      );
    out[v] = m;
  }
  return out;
}

async function nodeLine(
  steps: number,
  fullText: boolean,
  allRows: boolean,
  unshared: boolean,
  passes: boolean,
): Promise<Record<string, unknown>> {
  const ctx = await nodeContext();
  const exp = parseExperiment({
    modelSize: ctx.adapter.isFallback ? "small" : "default",
    // No eval inside the timed steps: evals are timed on their own below.
    algorithm: { steps: steps + 2, evalEvery: 10_000 },
    ...(passes
      ? {
          task: { multipleChoice: true, hintRate: 0, traceSlipRate: 0 },
          variants: [{ name: "rlvr" }, { name: "scs" }, { name: "acre" }],
        }
      : {}),
  });
  const ckpt = loadShippedCheckpoint(exp);
  const sink = consoleSink(undefined, true);
  const run = new LabRun(
    ctx,
    exp,
    sink,
    inProcessScorer,
    mnistFor(exp),
    ckpt ? { config: ckpt.config, params: ckpt.params } : null,
  );
  run.engine.trimText = !fullText;
  run.engine.compactRows = !allRows;
  run.engine.sharePrefix = !unshared;
  if (!ckpt) {
    run.beginSft();
    await run.runSteps(Number.POSITIVE_INFINITY);
  }
  await run.runSteps(1); // warm-up
  // The steady state: the matmuls' 16×8 tiles, built in the background, in place (CallOptions.upgrade).
  await ctx.backgroundBuilds();
  const cpu0 = process.cpuUsage();
  await run.runSteps(steps);
  const cpu = process.cpuUsage(cpu0);
  const cpuMsPerStep = (cpu.user + cpu.system) / 1000 / steps;
  const evalMs: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    await run.evalAll();
    evalMs.push(performance.now() - t0);
  }
  ctx.destroy();
  const { groupSize, batchPrompts } = exp.algorithm;
  const variants = phaseMedians(
    sink.rows.filter((r) => r.kind === "train"),
    groupSize,
    batchPrompts,
  );
  return {
    environment: "node",
    adapter: ctx.adapter.description,
    update_text: fullText ? "every column (--full-text)" : "the used columns (text window)",
    update_prefix: unshared
      ? "every rollout on its own (--unshared)"
      : "a group's shared image and prompt once (shared prefix)",
    update_rows: allRows
      ? "every row (--all-rows)"
      : "last block after attention and the head on the loss rows (compacted)",
    experiment: {
      modelSize: exp.modelSize,
      variants: exp.variants.map((v) => v.name),
      groupSize,
      batchPrompts,
      evalSize: exp.evalSize,
      coldStart: ckpt ? "shipped" : "SFT from scratch",
    },
    variants,
    step_ms: round(Object.values(variants).reduce((a, m) => a + (m.step_time_ms ?? 0), 0)),
    cpu_ms_per_step: round(cpuMsPerStep),
    eval_ms: round(median(evalMs)),
    ...(passes ? { extra_passes: extraPasses(variants) } : {}),
  };
}

/** Each pass variant's extra generation cost as a ratio to RLVR's plain step (same run, same prompts). */
function extraPasses(
  variants: Record<string, Record<string, number>>,
): Record<string, Record<string, number>> {
  const plain = variants.rlvr?.step_time_ms;
  const out: Record<string, Record<string, number>> = {};
  for (const [name, m] of Object.entries(variants)) {
    if (name === "rlvr" || !plain) continue;
    out[name] = {
      passes_ms: m.passes_ms,
      step_over_plain_step: Math.round((m.step_time_ms / plain) * 100) / 100,
      passes_over_plain_step: Math.round((m.passes_ms / plain) * 100) / 100,
    };
  }
  return out;
}

runBench("bench-rl", async () => {
  const flags = parseBenchFlags(process.argv.slice(2), {
    steps: { kind: "int", min: 5, max: 50, default: 5, help: "timed RL steps" },
    env: { kind: "list", of: ["node", "chromium"], default: ["node", "chromium"], help: "where" },
    "page-minutes": { kind: "number", above: 0, max: 120, default: 20, help: "page time limit" },
    "full-text": { kind: "bool", help: "the update on every text column" },
    "all-rows": { kind: "bool", help: "the update's last layer on every row" },
    unshared: { kind: "bool", help: "the update without the shared prefix" },
    passes: { kind: "bool", help: "SCS and ACRE beside RLVR" },
    previous: { kind: "string", help: "an earlier build's output lines (JSONL) to compare with" },
  });
  const previous = flags.previous !== undefined ? readPrevious(flags.previous) : null;
  const steps = flags.steps;
  const envs = flags.env;
  const lines: Record<string, unknown>[] = [];
  const fullText = flags["full-text"] === true;
  if (fullText && envs.includes("chromium"))
    throw new Error("--full-text is for the node environment only: add --env node");
  const allRows = flags["all-rows"] === true;
  if (allRows && envs.includes("chromium"))
    throw new Error("--all-rows is for the node environment only: add --env node");
  const unshared = flags.unshared === true;
  if (unshared && envs.includes("chromium"))
    throw new Error("--unshared is for the node environment only: add --env node");
  const passes = flags.passes === true;
  if (passes && envs.includes("chromium"))
    throw new Error("--passes is for the node environment only: add --env node");
  if (envs.includes("node")) lines.push(await nodeLine(steps, fullText, allRows, unshared, passes));
  if (envs.includes("chromium")) {
    const page = await runPage({
      minutes: flags["page-minutes"],
      untilStep: steps + 1,
    });
    const variants = phaseMedians(page.trainRows, page.groupSize, page.batchPrompts);
    lines.push({
      environment: "chromium",
      adapter: page.adapter,
      variants,
      step_ms: round(Object.values(variants).reduce((a, m) => a + (m.step_time_ms ?? 0), 0)),
      click_s: page.clickS,
      first_train_s: page.firstTrainS,
      first_eval_s: page.firstEvalS,
    });
  }
  if (previous)
    for (const line of lines) {
      const prev = previous.find((p) => p.environment === line.environment);
      if (prev) line.ratio_to_previous = ratios(prev, line);
    }
  return lines;
});

/**
 * The JSON lines of an earlier run (the file's lines that parse as objects with an `environment`).
 * @throws Error naming the file when it cannot be read or holds no such line.
 */
function readPrevious(file: string): Record<string, unknown>[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new Error(`--previous ${file}: ${(e as Error).message}`);
  }
  const lines = text
    .split("\n")
    .filter((l) => l.trim().startsWith("{"))
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        return null;
      }
    })
    .filter((l): l is Record<string, unknown> => l !== null && typeof l.environment === "string");
  if (lines.length === 0) throw new Error(`--previous ${file}: no bench:rl line in it`);
  return lines;
}

/** Previous over current (> 1: this build is faster) for the step, the CPU time and each variant's phases. */
function ratios(prev: Record<string, unknown>, cur: Record<string, unknown>) {
  const r = (a: unknown, b: unknown) =>
    typeof a === "number" && typeof b === "number" && b > 0 ? round(a / b) : null;
  const out: Record<string, unknown> = {
    step_ms: r(prev.step_ms, cur.step_ms),
    cpu_ms_per_step: r(prev.cpu_ms_per_step, cur.cpu_ms_per_step),
  };
  const pv = (prev.variants ?? {}) as Record<string, Record<string, number>>;
  const cv = (cur.variants ?? {}) as Record<string, Record<string, number>>;
  for (const [name, m] of Object.entries(cv)) {
    const p = pv[name];
    if (!p) continue;
    out[name] = Object.fromEntries(
      ["step_time_ms", "generate_ms", "reward_ms", "update_ms"].map((k) => [k, r(p[k], m[k])]),
    );
  }
  return out;
}
