/**
 * The SCS and ACRE claims' scenarios as the claims table reads them: each
 * scenario's premise check (printed next to its claims' rows), and SCS's
 * paired comparisons at the last eval with SCS App. A's best-checkpoint
 * figure beside them.
 */
import { paired, type Comparison } from "./claim-values";

/** The SCS claims' premise check (README, "the papers' premises"; docs/results.md, 2026-12-06). */
export const SCS_PREMISE =
  "premise held: on the faint-digit scenario RLOO + format kept its lucky-guess rate within its step-0 band over 20 steps (tuning seeds 41–43)";
/** The ACRE claims' premise check (docs/results.md, 2026-12-06). */
export const ACRE_PREMISE =
  "premise did not hold: GRPO + format + length left the index binding on tuning seeds 41 and 43 and went into it on 42, so these rows test nothing of ACRE";

/** SCS App. A's checkpoint protocol, named in the rows it judges. */
const SCS_BEST = "best of every 10 steps, SCS App. A protocol";

/**
 * RLOO + SCS − RLOO + format of one metric at the last eval, and beside it
 * at each arm's best eval of every 10 steps (SCS App. A; not in the claim's
 * verdict: the lab selects on the eval it reports, so it is optimistic).
 */
export function scsVsBaseline(spec: {
  metric: string;
  direction: 1 | -1;
  paperEffect: number;
  what: string;
}): Comparison[] {
  const base = { metric: spec.metric, a: "scs", b: "scs-baseline", direction: spec.direction };
  return [
    paired({
      ...base,
      paperEffect: spec.paperEffect,
      label: `RLOO + SCS − RLOO, final ${spec.what}`,
      series: `SCS − RLOO, ${spec.what}`,
    }),
    paired({
      ...base,
      at: "best",
      beside: true,
      paperEffect: spec.paperEffect,
      label: `RLOO + SCS − RLOO, ${spec.what} (${SCS_BEST})`,
      series: `SCS − RLOO, ${spec.what} (best)`,
    }),
  ];
}

/** Acc of arm `a` − arm `b` at the last eval and, beside it, at each arm's best of every 10 steps (SCS Tab. 4, App. A). */
export function scsAcc(a: string, b: string, paperEffect: number, what: string): Comparison[] {
  const base = { metric: "acc", a, b, direction: 1 as const, paperEffect };
  return [
    paired({ ...base, label: `${what}, final Acc`, series: `${what}, Acc` }),
    paired({
      ...base,
      at: "best",
      beside: true,
      label: `${what}, Acc (${SCS_BEST})`,
      series: `${what}, Acc (best)`,
    }),
  ];
}
