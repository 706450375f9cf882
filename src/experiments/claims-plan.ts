/**
 * Which lab runs a claims report needs (the `claims` CLI): per task one run
 * of every variant at its defaults, arms with other weights in runs of
 * their own (one experiment holds each variant once), and how a claim's
 * inputs are gathered from them.
 */
import {
  CLAIMS,
  type ClaimArm,
  type ClaimInputs,
  type ClaimSpec,
  type StabilityPoint,
} from "./claims";
import { SWEEP_SIGMA_B } from "./stability-sweep";
import type { JudgeSettings } from "../rewards/judges";
import type { MetricRow } from "../run/run-types";

/** σ_b values of the stability plot: SWEEP_SIGMA_B and the judge's default, ascending (σ_j and δ at the judge's defaults). */
export function sigmaBSweep(judge: JudgeSettings): number[] {
  return [...new Set<number>([...SWEEP_SIGMA_B, judge.sigmaB])].sort((a, b) => a - b);
}

/** The runs claims come from (ClaimSpec.task; absent = the default scenario's). */
const TASK_KEYS = ["default", "multiple-choice"] as const;
type TaskKey = (typeof TASK_KEYS)[number];
const taskOf = (c: ClaimSpec): TaskKey => c.task ?? "default";

/** One lab run of a claims report: its task, the arms it trains (each variant once) and whether it runs the stability sweep. */
export interface RunPlan {
  /** "default", "multiple-choice", then "<task>-2", … for arms that need a run of their own. */
  key: string;
  task: TaskKey;
  arms: ClaimArm[];
  stability: boolean;
}

/**
 * The runs the claims need: per task, one run of every variant at its
 * defaults (and the stability sweep, in the default task's), and each arm
 * with other weights in the first run of its task that does not train its
 * variant yet, else a new one (one experiment holds each variant once).
 * Arms in table order (CLAIMS), so a run's arms do not depend on which claims
 * were asked for.
 */
export function planRuns(claims: readonly ClaimSpec[]): RunPlan[] {
  const order = CLAIMS.flatMap((c) => [...c.variants, ...(c.arms ?? []).map((a) => a.key)]);
  const rank = (key: string) => order.indexOf(key);
  const plans: RunPlan[] = [];
  for (const task of TASK_KEYS) {
    const group = claims.filter((c) => taskOf(c) === task);
    if (group.length === 0) continue;
    const names = [...new Set(group.flatMap((c) => c.variants))].sort((a, b) => rank(a) - rank(b));
    const first: RunPlan = {
      key: task,
      task,
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
        run = { key: `${task}-${runs.length + 1}`, task, arms: [], stability: false };
        runs.push(run);
      }
      run.arms.push(arm);
    }
    plans.push(...runs.filter((r) => r.arms.length > 0 || r.stability));
  }
  return plans;
}

/** A claim's inputs: the rows of every run of its task (arm keys are unique) and the stability sweep. */
export function claimInputs(
  c: ClaimSpec,
  plans: readonly RunPlan[],
  byPlan: ReadonlyMap<string, ClaimInputs>,
  judge: JudgeSettings,
): ClaimInputs {
  const mine = plans.filter((p) => p.task === taskOf(c)).map((p) => byPlan.get(p.key)!);
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
