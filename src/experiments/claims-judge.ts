/**
 * Judging a claim over seeds (docs/reward-spec.md §2 "How the claims are
 * judged"): each paired comparison's mean, sd and 95 % interval, its
 * minimum detectable effect at N and the seeds its paper effect would need;
 * the claim's verdict is the intersection–union of its comparisons.
 */
import type { ClaimResult, ComparisonResult } from "./claims-report";
import { comparisonsOf, type ClaimInputs, type ClaimSpec } from "./claims";
import {
  intersectionUnionVerdict,
  minDetectableEffect,
  seedsNeeded,
  summarizeSeeds,
  verdict,
} from "./seed-stats";

/** A seed count as JSON can hold it: the number, or a string past the search bound. */
function seedCount(n: number): number | string {
  return Number.isFinite(n) ? n : "more than 100000";
}

/** One comparison's figures over the seeds: summary, verdict, MDE at N and the N its paper effect needs. */
function judgeComparison(
  k: ReturnType<typeof comparisonsOf>[number],
  inputs: ClaimInputs,
  seeds: number[],
): ComparisonResult {
  const perSeed = seeds.map((s) => k.perSeed(inputs, s));
  const sum = summarizeSeeds(perSeed);
  const mde = sum.n >= 2 ? minDetectableEffect({ n: sum.n, sd: sum.sd }) : null;
  return {
    label: k.label,
    direction: k.direction,
    mean: sum.mean,
    sd: sum.sd,
    ci95: sum.ci95,
    per_seed: perSeed,
    mde,
    paper_effect: k.paperEffect,
    n_needed:
      k.paperEffect === null || sum.n < 2
        ? null
        : seedCount(seedsNeeded({ sd: sum.sd, effect: k.paperEffect })),
    verdict: verdict(sum, k.direction),
    ...(k.beside ? { beside: true as const } : {}),
  };
}

/**
 * Whether N seeds decide a claim: "yes" when its verdict is reached
 * (reproduced or not reproduced); for an inconclusive one "no" when a
 * comparison that is itself inconclusive has a paper effect that needs more
 * than N seeds at this sd, else "unknown" (no paper effect to size it by).
 */
function decidability(
  comparisons: readonly ComparisonResult[],
  verdictOfClaim: ClaimResult["verdict"],
  n: number,
): "yes" | "no" | "unknown" {
  if (verdictOfClaim !== "inconclusive") return "yes";
  const open = comparisons.filter((k) => !k.beside && k.verdict === "inconclusive");
  if (open.some((k) => k.n_needed !== null && (typeof k.n_needed === "string" || k.n_needed > n)))
    return "no";
  return open.some((k) => k.paper_effect === null) ? "unknown" : "yes";
}

/**
 * One claim's result: each comparison's figures, the intersection–union
 * verdict of those not printed `beside` (a figure shown next to the claim's
 * own, such as SCS App. A's best checkpoint), its level and premise note.
 */
export function judgeClaim(
  c: ClaimSpec,
  inputs: ClaimInputs,
  seeds: number[],
  command: string,
): ClaimResult {
  const base = {
    id: c.id,
    paper: c.paper,
    statement: c.statement,
    paper_figure: c.paper_figure,
    command,
    metric: c.metric,
    ...(c.level ? { level: c.level } : {}),
    ...(c.premise ? { premise: c.premise } : {}),
  };
  const list = comparisonsOf(c);
  if (c.notRunnable || list.length === 0)
    return {
      ...base,
      lab: null,
      verdict: "not runnable",
      reason: c.notRunnable ?? "no per-seed figure",
    };
  let comparisons: ComparisonResult[];
  const skipped: string[] = [];
  try {
    comparisons = list.flatMap((k) => {
      // A figure printed beside the claim's own needs evals its run may not have (SCS App. A's
      // multiples of 10 steps at a 2-step test size): then it is left out, saying why.
      if (!k.beside) return [judgeComparison(k, inputs, seeds)];
      try {
        return [judgeComparison(k, inputs, seeds)];
      } catch (e) {
        skipped.push(`${k.label}: ${(e as Error).message}`);
        return [];
      }
    });
  } catch (e) {
    // A mechanism claim on a run too small to hold the rollouts it compares (no group with both kinds).
    if (!c.rlSteps) throw e;
    return { ...base, lab: null, verdict: "not runnable", reason: (e as Error).message };
  }
  const first = comparisons[0];
  const claimVerdict = intersectionUnionVerdict(
    comparisons.filter((k) => !k.beside).map((k) => k.verdict),
  );
  return {
    ...base,
    lab: { mean: first.mean, ci95: first.ci95, per_seed: first.per_seed },
    comparisons,
    verdict: claimVerdict,
    decidable: decidability(comparisons, claimVerdict, seeds.length),
    ...(skipped.length ? { skipped } : {}),
  };
}
