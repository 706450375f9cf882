/**
 * What the claims' figures are computed from and the helpers that read them
 * (src/experiments/claims.ts): a seed's metric rows and stability points,
 * the paired comparison of two arms (or of one arm and the cold start) at
 * the last eval, the first eval after the cold start, or a given step.
 */
import type { JudgeSettings } from "../rewards/judges";
import type { MetricRow } from "../run/run-types";
import { bestEval } from "./best-checkpoint";

/** One judge-stability measurement (GRR §4.3.4) of one seed. */
export interface StabilityPoint {
  sigmaB: number;
  sigmaJ: number;
  delta: number;
  pointwise: number;
  groupwise: number;
}

/** What a claim's per-seed figure is computed from. */
export interface ClaimInputs {
  /** Every metric row of the claim's runs (rows carry `seed`; `variant` is the arm's key). */
  rows: readonly MetricRow[];
  /** Stability sweep per seed (only for claims that need it). */
  stability: ReadonlyMap<number, readonly StabilityPoint[]>;
  /** The judge the run used (absent: the default judge at its defaults). */
  judge?: JudgeSettings;
}

/** One paired comparison of a claim, judged on its own (docs/reward-spec.md §2). */
export interface Comparison {
  /** What the per-seed difference is, for tables ("GRR − pointwise GR, final RC-Acc"). */
  label: string;
  /** The difference's series on the plot (comparisons of one difference at two steps share it). */
  series: string;
  /** +1: the paper's side is a positive difference; −1: a negative one. */
  direction: 1 | -1;
  /**
   * The paper's own effect in the lab's units (on the paper's side, signed),
   * for the seeds it would need; null when the paper gives no number.
   */
  paperEffect: number | null;
  /** The per-seed difference that is judged. @throws Error when a needed row is missing. */
  perSeed: (inputs: ClaimInputs, seed: number) => number;
  /** The same difference at every eval step (step → value), for the plot; absent: none. */
  perStep?: (inputs: ClaimInputs, seed: number) => Map<number, number>;
  /**
   * Printed beside the claim's comparisons with its own verdict, but not part
   * of the claim's verdict (e.g. SCS App. A's best-checkpoint figure beside
   * the last step's).
   */
  beside?: true;
  /** What `paired` built it from, so a claim's arms can be renamed (src/experiments/claim-levels.ts). */
  spec?: PairedSpec;
}

/** The settings of a paired comparison (see `paired`). */
interface PairedSpec {
  metric: string;
  a: string;
  b: string;
  /**
   * Which eval: "last", "first" after the cold start, a step, or "best": each
   * arm at its own best eval by Acc among the multiples of 10 steps (SCS
   * App. A, src/experiments/best-checkpoint.ts).
   */
  at?: "last" | "first" | "best" | number;
  direction: 1 | -1;
  paperEffect: number | null;
  label: string;
  series: string;
  beside?: true;
}

/** Eval rows of one arm under one seed, by step. */
function evalRows(rows: readonly MetricRow[], variant: string, seed: number): MetricRow[] {
  return rows
    .filter((r) => r.kind === "eval" && r.variant === variant && r.seed === seed)
    .sort((a, b) => a.step - b.step);
}

/** The metric at the last eval of an arm under a seed. */
function finalValue(
  rows: readonly MetricRow[],
  variant: string,
  seed: number,
  metric: string,
): number {
  const ev = evalRows(rows, variant, seed);
  const v = ev.at(-1)?.values[metric];
  if (v === undefined)
    throw new Error(`claims: no eval of ${variant} (seed ${seed}) with metric ${metric}`);
  return v;
}

/** The metric at the eval of `step` of an arm under a seed. */
function valueAt(
  rows: readonly MetricRow[],
  variant: string,
  seed: number,
  metric: string,
  step: number,
): number {
  const v = evalRows(rows, variant, seed).find((r) => r.step === step)?.values[metric];
  if (v === undefined)
    throw new Error(
      `claims: no step-${step} eval of ${variant} (seed ${seed}) with metric ${metric}`,
    );
  return v;
}

/** The cold start: an arm's step-0 eval (every arm of a run shares it). */
export const START = "cold start";

/** The first eval step after the cold start of an arm under a seed. @throws Error when it has none. */
function firstEvalStep(rows: readonly MetricRow[], variant: string, seed: number): number {
  const r = evalRows(rows, variant, seed).find((x) => x.step > 0);
  if (!r) throw new Error(`claims: no eval of ${variant} (seed ${seed}) after the cold start`);
  return r.step;
}

/** The metric at an arm's best eval (SCS App. A: highest Acc among multiples of 10 steps). @throws Error when it has none. */
function bestValue(
  rows: readonly MetricRow[],
  variant: string,
  seed: number,
  metric: string,
): number {
  const best = bestEval(rows, variant, seed);
  const v = best?.values[metric];
  if (v === undefined)
    throw new Error(
      `claims: no eval of ${variant} (seed ${seed}) at a multiple of 10 steps with metric ${metric}`,
    );
  return v;
}

/**
 * A paired difference `a − b` of one eval metric, judged at the last eval
 * (`at` "last"), at the first eval after the cold start ("first"), at each
 * arm's best eval ("best", SCS App. A) or at step `at`; `b` may be START
 * (a's own step-0 eval). Its per-step series is the same difference at
 * every eval step a has (none for "best": the two arms' steps differ).
 */
export function paired(spec: PairedSpec): Comparison {
  const at = spec.at ?? "last";
  const value = (rows: readonly MetricRow[], arm: string, seed: number, step: number | "last") =>
    step === "last"
      ? finalValue(rows, arm, seed, spec.metric)
      : valueAt(rows, arm, seed, spec.metric, step);
  const bAt = (rows: readonly MetricRow[], seed: number, step: number | "last") =>
    spec.b === START
      ? valueAt(rows, spec.a, seed, spec.metric, 0)
      : value(rows, spec.b, seed, step);
  const base = {
    label: spec.label,
    series: spec.series,
    direction: spec.direction,
    paperEffect: spec.paperEffect,
    spec,
    ...(spec.beside ? { beside: true as const } : {}),
  };
  if (at === "best")
    return {
      ...base,
      perSeed: ({ rows }, seed) =>
        bestValue(rows, spec.a, seed, spec.metric) -
        (spec.b === START
          ? valueAt(rows, spec.a, seed, spec.metric, 0)
          : bestValue(rows, spec.b, seed, spec.metric)),
    };
  return {
    ...base,
    perSeed: ({ rows }, seed) => {
      const step = at === "first" ? firstEvalStep(rows, spec.a, seed) : at;
      return value(rows, spec.a, seed, step) - bAt(rows, seed, step);
    },
    perStep: ({ rows }, seed) => {
      const out = new Map<number, number>();
      for (const r of evalRows(rows, spec.a, seed)) {
        const v = r.values[spec.metric];
        if (v === undefined) continue;
        out.set(r.step, v - bAt(rows, seed, r.step));
      }
      return out;
    },
  };
}

/** The stability point of a seed at σ_b. @throws Error when the sweep has none. */
export function stabilityAt(inputs: ClaimInputs, seed: number, sigmaB: number): StabilityPoint {
  const pts = inputs.stability.get(seed);
  const p = pts?.find((x) => x.sigmaB === sigmaB);
  if (!p) throw new Error(`claims: no stability point with sigmaB ${sigmaB} for seed ${seed}`);
  return p;
}
