/**
 * The judge-stability study of GRR §4.3.4 on a lab run's own rollouts: fixed
 * groups sampled once on the GPU from the run's current policy (or its
 * reference, the cold start), then `stabilitySweep` over judge-noise settings
 * on the CPU. The trainer worker (the page's "Judge stability" panel) and
 * `npm run stability` both call `stabilityReport`, so they cannot disagree.
 */
import { stabilitySweep, type SweepResult, type SweepSetting } from "./stability-sweep";
import { deriveSeed, Rng } from "../tasks/rng";
import { decodeResponse } from "../tasks/tokenizer";
import type { TaskPrompt } from "../tasks/types";
import { verifyParsed, goldOf } from "../rewards/verifier";
import { parseTrace } from "../rewards/trace";
import type { VariantName } from "../settings/experiment";
import type { LabRun } from "../run/lab-run";
import { imageTensor, promptTensor, row } from "../engine/sequences";

/** Most prompts and rollouts per prompt of one study (lab choice: one generate call must fit a browser's GPU limits). */
export const MAX_STABILITY_PROMPTS = 256;
export const MAX_STABILITY_GROUP_SIZE = 64;

/** Which parameters sample the rollouts: the run's reference (cold start) or a variant's current policy. */
export type StabilityPolicy = "reference" | VariantName;

/** Options of `rolloutGroups`. */
export interface RolloutGroupsOptions {
  /** Training prompts to draw, integer in [1, MAX_STABILITY_PROMPTS]. */
  prompts: number;
  /** Rollouts per prompt G, integer in [2, MAX_STABILITY_GROUP_SIZE] (a ranking needs two). */
  groupSize: number;
  /** Seed of the prompt draw and of the sampling: integer in [0, 2^32). */
  seed: number;
  /** Sampling temperature (> 0); default the run's algorithm.temperature. topK / topP are the run's. */
  temperature?: number;
  /**
   * "reference" (default): the cold-start parameters; a variant name: that
   * variant's current parameters (the first seed's copy in a multi-seed run).
   */
  policy?: StabilityPolicy;
}

/** Fixed groups of rollouts: groups[p] holds the G decoded response texts of prompts[p]. */
export interface RolloutGroups {
  prompts: TaskPrompt[];
  groups: string[][];
}

function requireInt(value: unknown, name: string, lo: number, hi: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < lo || value > hi) {
    throw new Error(`${name} must be an integer in [${lo}, ${hi}] (got ${String(value)})`);
  }
  return value;
}

/**
 * `rolloutGroups(run, {prompts, groupSize, seed, temperature?, policy?})`:
 * draws `prompts` training prompts (`run.tasks.sampleBatch`, rng
 * `deriveSeed(seed, "stability", "prompts")`) and samples `groupSize`
 * rollouts of each on the GPU with the chosen policy, exactly as an RL step
 * does (one `engine.generate` call in group order, sampling seed
 * `deriveSeed(seed, "stability", "rollouts")`), then decodes them.
 * Deterministic for a seed and policy parameters. Reads the run, changes
 * nothing in it (a variant's parameters go to a temporary GPU buffer).
 * @returns prompts [P] and groups [P][G] of response texts.
 * @throws Error naming `prompts`, `groupSize`, `seed`, `temperature` or
 *   `policy` for a value out of range or a variant the run does not train.
 */
export async function rolloutGroups(
  run: LabRun,
  opts: RolloutGroupsOptions,
): Promise<RolloutGroups> {
  const P = requireInt(opts.prompts, "prompts", 1, MAX_STABILITY_PROMPTS);
  const G = requireInt(opts.groupSize, "groupSize", 2, MAX_STABILITY_GROUP_SIZE);
  const seed = requireInt(opts.seed, "seed", 0, 2 ** 32 - 1);
  const alg = run.experiment.algorithm;
  const temperature = opts.temperature ?? alg.temperature;
  if (typeof temperature !== "number" || !Number.isFinite(temperature) || temperature <= 0) {
    throw new Error(`temperature must be a finite number > 0 (got ${String(temperature)})`);
  }
  const policy = opts.policy ?? "reference";
  if (policy !== "reference" && !run.variantNames.includes(policy)) {
    throw new Error(
      `policy '${String(policy)}' is not trained in this run; use reference or one of ${run.variantNames.join(", ")}`,
    );
  }
  const prompts: TaskPrompt[] = run.tasks.sampleBatch(
    P,
    new Rng(deriveSeed(seed, "stability", "prompts")),
  );
  const { promptLen, maxNew } = run.engine.shape;
  const temp =
    policy === "reference"
      ? null
      : run.ctx.createBufferFrom("stability.policy", await run.variantParams(policy));
  try {
    const gen = await run.engine.generate(
      { params: temp ?? run.engine.ref },
      imageTensor(prompts, G),
      promptTensor(prompts, promptLen, G),
      {
        temperature,
        topK: alg.topK,
        topP: alg.topP,
        greedy: false,
        seed: deriveSeed(seed, "stability", "rollouts"),
      },
      G,
    );
    const groups = prompts.map((_, p) =>
      Array.from({ length: G }, (_, k) => decodeResponse(row(gen.tokens, p * G + k, maxNew))),
    );
    return { prompts, groups };
  } finally {
    temp?.destroy(); // generate has read its tokens back: the GPU is done with it
  }
}

/** Options of `stabilityReport`: `rolloutGroups`'s plus the study's. */
export interface StabilityReportOptions extends RolloutGroupsOptions {
  /** Repeats R of the reward assignment (GRR §4.3.4: 4), integer ≥ 2. */
  repeats?: number;
  /** Judge-noise settings (default DEFAULT_SWEEP_SETTINGS of src/experiments/stability-sweep.ts). */
  settings?: ReadonlyArray<Partial<SweepSetting>>;
}

/** What the CLI prints and the page shows. */
export interface StabilityReport {
  prompts: number;
  groupSize: number;
  repeats: number;
  seed: number;
  policy: StabilityPolicy;
  /** RL steps the run had done when the rollouts were sampled (0: every variant is still the cold start). */
  step: number;
  /** Sampling temperature of the rollouts. */
  temperature: number;
  /** Fraction of the rollouts the verifier passes (only those get a rank reward; the others' groupwise variance is 0). */
  passRate: number;
  /** One result per judge-noise setting, in order (squared reward units). */
  settings: SweepResult[];
}

/**
 * `stabilityReport(run, opts)`: `rolloutGroups` once, then `stabilitySweep`
 * on those fixed groups (judge-noise seed = `seed`, λ = 1 and PCS as GRR
 * §4.1, variance over all rollouts, population variance: lab choices of
 * `stabilityStudy`). The GPU samples; everything after is CPU reward math.
 * @throws the errors of `rolloutGroups` and `stabilitySweep` (each names its field).
 */
export async function stabilityReport(
  run: LabRun,
  opts: StabilityReportOptions,
): Promise<StabilityReport> {
  const repeats = opts.repeats ?? 4;
  requireInt(repeats, "repeats", 2, 1000);
  const { prompts, groups } = await rolloutGroups(run, opts);
  const settings = stabilitySweep({
    prompts,
    groups,
    repeats,
    seed: opts.seed,
    settings: opts.settings,
  });
  let passed = 0;
  prompts.forEach((p, i) => {
    const gold = goldOf(p);
    for (const text of groups[i]) if (verifyParsed(parseTrace({ text }), gold).passed) passed++;
  });
  return {
    prompts: prompts.length,
    groupSize: opts.groupSize,
    repeats,
    seed: opts.seed,
    policy: opts.policy ?? "reference",
    step: run.step,
    temperature: opts.temperature ?? run.experiment.algorithm.temperature,
    passRate: passed / (prompts.length * opts.groupSize),
    settings,
  };
}
