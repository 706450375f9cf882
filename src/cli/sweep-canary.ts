/**
 * A sweep's canary (src/cli/sweep-folder.ts): the sweep's units at a tiny
 * size under one fixed seed, run in memory when a sweep starts and again when
 * it is resumed under other code; their figures, kept in the manifest, must
 * come out bit for bit the same, or the resume is refused. Every unit is a
 * function of its settings and seed (src/run/sweep.ts), so the same code
 * gives the same figures; a change that moves any of them moves the
 * sweep's numbers.
 */
import { parseExperiment, type Experiment } from "../settings/experiment";
import { metricDef } from "../settings/metric-table";
import type { CanaryValues } from "./sweep-folder";

/** Seed of the canary's units (lab choice: one no claims table or preset uses). */
export const CANARY_SEED = 7919;

/**
 * The canary's run size (lab choice): 2 RL steps of 2 prompts × 2 rollouts,
 * an eval of 4 prompts at step 2 (and 2 SFT steps for a sweep that makes its
 * own cold start): every code path of a unit, in seconds per unit.
 */
export const CANARY_SIZE = {
  steps: 2,
  groupSize: 2,
  batchPrompts: 2,
  evalEvery: 2,
  evalSize: 4,
  sftSteps: 2,
  stabilityPrompts: 2,
  stabilityRepeats: 2,
} as const;

/** `exp` at the canary's size (task, variants, weights and every other setting kept). */
export function canaryExperiment(exp: Experiment): Experiment {
  return parseExperiment({
    ...exp,
    algorithm: {
      ...exp.algorithm,
      steps: CANARY_SIZE.steps,
      groupSize: CANARY_SIZE.groupSize,
      batchPrompts: CANARY_SIZE.batchPrompts,
      evalEvery: CANARY_SIZE.evalEvery,
    },
    evalSize: CANARY_SIZE.evalSize,
    sftSteps: CANARY_SIZE.sftSteps,
  });
}

/**
 * The figures of a sweep's unit values that the code decides, by path:
 * `<unit>/<kind>/<variant>/<seed>/<step>/<metric>` for metric rows,
 * `<unit>/final/<metric>`, `<unit>/coldStart/<metric>`, `<unit>/sft/<metric>`,
 * `<unit>/stability/<i>/<field>`. Wall times (a row's `time`) and cost
 * metrics (metric table group "cost": step time, dispatches) are left out,
 * being the machine's, not the code's. NaN is kept as null (JSON).
 * @param results unit id → stored value (claims or lab unit values).
 */
export function canaryValues(results: ReadonlyMap<string, unknown>): CanaryValues {
  const out: CanaryValues = {};
  const put = (path: string, v: unknown) => {
    if (typeof v === "number") out[path] = Number.isNaN(v) ? null : v;
  };
  const putAll = (prefix: string, values: unknown) => {
    if (values === null || typeof values !== "object") return;
    for (const [k, v] of Object.entries(values))
      if (metricDef(k)?.group !== "cost") put(`${prefix}/${k}`, v);
  };
  for (const [id, value] of results) {
    const o = value as Record<string, unknown>;
    if (Array.isArray(o.stability))
      o.stability.forEach((p, i) => {
        for (const [k, v] of Object.entries(p as object)) put(`${id}/stability/${i}/${k}`, v);
      });
    if (o.coldStart !== undefined) putAll(`${id}/coldStart`, o.coldStart);
    if (o.sft !== undefined) putAll(`${id}/sft`, (o.sft as { eval?: unknown }).eval);
    if (Array.isArray(o.rows))
      for (const r of o.rows as {
        kind: string;
        variant: string;
        seed?: number;
        step: number;
        values: unknown;
      }[])
        putAll(`${id}/${r.kind}/${r.variant}/${r.seed ?? "-"}/${r.step}`, r.values);
    if (o.final) putAll(`${id}/final`, o.final);
  }
  return out;
}
