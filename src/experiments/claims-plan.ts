/**
 * Which lab runs a claims report needs (the `claims` CLI): for the default
 * scenario's claims one run of every variant at its defaults and arms with
 * other weights in runs of their own (one experiment holds each variant
 * once); for SCS and ACRE one run per scenario run they name (CLAIM_RUNS, a
 * preset each); and how a claim's inputs are gathered from them.
 */
import {
  CLAIM_RUNS,
  CLAIMS,
  type ClaimArm,
  type ClaimInputs,
  type ClaimRun,
  type ClaimSpec,
  type StabilityPoint,
} from "./claims";
import { presetExperiment } from "../settings/presets";
import { SWEEP_SIGMA_B } from "./stability-sweep";
import type { JudgeSettings } from "../rewards/judges";
import type { MetricRow } from "../run/run-types";

/** σ_b values of the stability plot: SWEEP_SIGMA_B and the judge's default, ascending (σ_j and δ at the judge's defaults). */
export function sigmaBSweep(judge: JudgeSettings): number[] {
  return [...new Set<number>([...SWEEP_SIGMA_B, judge.sigmaB])].sort((a, b) => a - b);
}

/** One lab run of a claims report: its cold start, the arms it trains (each variant once) and whether it runs the stability sweep. */
export interface RunPlan {
  /** "default", then "default-2", … for arms that need a run of their own; a CLAIM_RUNS key for SCS / ACRE. */
  key: string;
  /**
   * The cold start and held-out eval the run shares with the other plans of
   * the same value: "default" (the default experiment's), or a CLAIM_RUNS
   * entry's `start`.
   */
  task: string;
  arms: ClaimArm[];
  stability: boolean;
  /** The preset an SCS / ACRE run is (its task, cold start, algorithm and weights), and the one variant it trains when set. */
  preset?: { name: string; only?: string };
}

/**
 * The runs the claims need: for the default scenario's claims one run of
 * every variant at its defaults (and the stability sweep), and each arm with
 * other weights in the first default run that does not train its variant
 * yet, else a new one (one experiment holds each variant once; an arm's own
 * σ_b or PRM goes with it); then one run
 * per CLAIM_RUNS entry the SCS / ACRE claims name (the preset's variants, or
 * its `only` one under its `label`). Arms in table order (CLAIMS), so a
 * run's arms do not depend on which claims were asked for.
 */
export function planRuns(claims: readonly ClaimSpec[]): RunPlan[] {
  // Arms the table does not hold (a claim repeated over a setting, ./claim-levels.ts) come after its own, in the claims' order.
  const order = [...CLAIMS, ...claims].flatMap((c) => [
    ...c.variants,
    ...(c.arms ?? []).map((a) => a.key),
  ]);
  const rank = (key: string) => order.indexOf(key);
  const plans: RunPlan[] = [];
  const group = claims.filter((c) => !c.runs);
  if (group.length > 0) {
    const names = [...new Set(group.flatMap((c) => c.variants))].sort((a, b) => rank(a) - rank(b));
    const first: RunPlan = {
      key: "default",
      task: "default",
      arms: names.map((n) => ({ key: n, variant: n, weights: {} })),
      stability: group.some((c) => c.stability),
    };
    const runs = [first];
    const extra = [
      ...new Map(group.flatMap((c) => c.arms ?? []).map((a) => [a.key, a])).values(),
    ].sort((a, b) => rank(a.key) - rank(b.key));
    for (const arm of extra) {
      let run = runs.find((r) => !r.arms.some((x) => x.variant === arm.variant));
      if (!run) {
        run = { key: `default-${runs.length + 1}`, task: "default", arms: [], stability: false };
        runs.push(run);
      }
      run.arms.push(arm);
    }
    plans.push(...runs.filter((r) => r.arms.length > 0 || r.stability));
  }
  // The SCS / ACRE scenario runs, in CLAIM_RUNS order; the preset's weights travel with its experiment.
  const wanted = new Set(claims.flatMap((c) => c.runs ?? []));
  for (const key of Object.keys(CLAIM_RUNS) as ClaimRun[]) {
    if (!wanted.has(key)) continue;
    const spec: { preset: string; start: string; only?: string; label?: string } = CLAIM_RUNS[key];
    const variants = presetExperiment(spec.preset).variants.filter(
      (v) => !spec.only || v.name === spec.only,
    );
    plans.push({
      key,
      task: spec.start,
      arms: variants.map((v) => ({ key: spec.label ?? v.name, variant: v.name, weights: {} })),
      stability: false,
      preset: { name: spec.preset, ...(spec.only ? { only: spec.only } : {}) },
    });
  }
  return plans;
}

/** A claim's inputs: the rows of the runs it names, or of every default-scenario run (arm keys are unique there), and the stability sweep. */
export function claimInputs(
  c: ClaimSpec,
  plans: readonly RunPlan[],
  byPlan: ReadonlyMap<string, ClaimInputs>,
  judge: JudgeSettings,
): ClaimInputs {
  const mine = plans
    .filter((p) => (c.runs ? (c.runs as readonly string[]).includes(p.key) : p.task === "default"))
    .map((p) => byPlan.get(p.key)!);
  const stability = new Map<number, StabilityPoint[]>();
  for (const m of mine) for (const [seed, pts] of m.stability) stability.set(seed, [...pts]);
  return { rows: mine.flatMap((m) => m.rows), stability, judge };
}

/** Rows of an arm with other weights under its key (a run trains each variant once, so the name is unambiguous). */
export function relabel(rows: readonly MetricRow[], arms: readonly ClaimArm[]): MetricRow[] {
  const keyOf = new Map(arms.map((a) => [a.variant as string, a.key]));
  return rows.map((r) => {
    const key = keyOf.get(r.variant);
    return key && key !== r.variant ? { ...r, variant: key } : r;
  });
}
