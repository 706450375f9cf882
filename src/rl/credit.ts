/**
 * What a step's reward paid for (docs/reward-spec.md §6): per rollout class
 * the share of the step's rollouts, their mean reward and the mean advantage
 * the update used (`credit/<class>/<part>`), and the within-group contrasts
 * the mechanism claims read (`credit/contrast/<name>/<part>`): in each group
 * holding both sides, the high side's mean minus the low side's, averaged
 * over those groups, so a group's composition does not decide it.
 */
import { contentAnswer } from "../rewards/metrics";
import { parseTrace } from "../rewards/trace";
import {
  CONTRASTS,
  CONTRAST_PARTS,
  contrastKey,
  creditKey,
  ROLLOUT_CLASSES,
  type ContrastName,
  type CreditMetricKey,
  type ContrastMetricKey,
} from "../settings/credit-table";
import type { TaskPrompt } from "../tasks/types";
import type { RolloutFacts } from "./rollout-class";

/** ACRE's second ask of one group (GroupPasses.reask): re-asked texts and their options. */
interface Reask {
  texts: readonly (string | null)[];
  options: readonly Record<string, string>[];
}

/**
 * Whether each rollout's answer changes content when re-asked with the
 * options shuffled and the same trace (ACRE §3.2 / eq. 3): true when the
 * second answer is another option's content or none (as OSCR counts it),
 * false when the same content; null for a rollout without an answer.
 */
export function shuffleChanged(
  prompt: Pick<TaskPrompt, "options">,
  texts: readonly string[],
  reask: Reask,
): (boolean | null)[] {
  return texts.map((text, i) => {
    const first = parseTrace({ text });
    if (first.finalAnswer === null || first.answerTruncated) return null;
    const a = contentAnswer(first.finalAnswer, prompt.options);
    const t2 = reask.texts[i];
    if (t2 === null || t2 === undefined) return true;
    const second = parseTrace({ text: t2 });
    if (second.finalAnswer === null || second.answerTruncated) return true;
    return contentAnswer(second.finalAnswer, reask.options[i] ?? prompt.options) !== a;
  });
}

/** One rollout as the credit reads it. */
export interface CreditRollout {
  facts: RolloutFacts;
  /** The variant's total reward (NaN: unscorable), without a folded KL penalty. */
  reward: number;
  /** The advantage the update used. */
  advantage: number;
  /** ACRE's shuffle: the answer changed (null: no answer, or no second ask). */
  changed: boolean | null;
}

/**
 * Which side of a contrast a rollout is on: "high" (the side the paper's
 * reward should pay more), "low", or null (neither). Only right answers take
 * part, so the verifier's pay is the same on both sides:
 *   wrong-steps   low: reasoning not the reference's; high: the reference's (SCS, StructReward, PRM)
 *   unsupported   low: not the trace's own conclusion; high: its conclusion (GRR)
 *   shuffle       low: changes under ACRE's option shuffle; high: does not (ACRE, only with its pass)
 *   index-bound   low: copies a letter named before `</think>`; high: does not (ACRE's control)
 *   guess         low: not the trace's own conclusion; high: class faithful right only (SCS's guess)
 */
function contrastSide(name: ContrastName, r: CreditRollout): "high" | "low" | null {
  if (!r.facts.right) return null;
  switch (name) {
    case "wrong-steps":
      return r.facts.referenceSteps ? "high" : "low";
    case "unsupported":
      return r.facts.unsupported ? "low" : "high";
    case "shuffle":
      return r.changed === null ? null : r.changed ? "low" : "high";
    case "index-bound":
      return r.facts.indexBound ? "low" : "high";
    case "guess":
      return r.facts.unsupported ? "low" : r.facts.cls === "faithful-right" ? "high" : null;
  }
}

function meanOf(xs: readonly number[]): number {
  const f = xs.filter((x) => Number.isFinite(x));
  return f.length ? f.reduce((a, b) => a + b, 0) / f.length : NaN;
}

/**
 * The step's credit values from its groups of rollouts [groups][G]:
 *   credit/<class>/share      rollouts in the class / all rollouts
 *   credit/<class>/reward     mean reward over the class's scorable rollouts (none: left out)
 *   credit/<class>/advantage  mean advantage over the class (none: left out)
 *   credit/contrast/<c>/advantage, /reward   mean over the groups holding both sides
 *                             of (high side's mean − low side's mean) (no such group: left out)
 *   credit/contrast/<c>/groups  the number of such groups
 *   credit/contrast/<c>/low   mean advantage of the low side over the step (none: left out)
 * A value that would be NaN (an empty class, no group with both sides) is left
 * out of the result: JSON, which carries the rows to files, recordings and
 * stored sweeps, has no NaN, and an absent key reads as "nothing measured"
 * everywhere. Source: lab metric (docs/reward-spec.md §6).
 */
export function creditValues(
  groups: readonly (readonly CreditRollout[])[],
): Partial<Record<CreditMetricKey | ContrastMetricKey, number>> {
  const all = groups.flat();
  const out: Partial<Record<CreditMetricKey | ContrastMetricKey, number>> = {};
  for (const c of ROLLOUT_CLASSES) {
    const mine = all.filter((r) => r.facts.cls === c.key);
    out[creditKey(c.key, "share")] = all.length ? mine.length / all.length : NaN;
    out[creditKey(c.key, "reward")] = meanOf(mine.map((r) => r.reward));
    out[creditKey(c.key, "advantage")] = meanOf(mine.map((r) => r.advantage));
  }
  for (const name of CONTRASTS) {
    const diffs = { advantage: [] as number[], reward: [] as number[] };
    const low: number[] = [];
    for (const g of groups) {
      const hi = g.filter((r) => contrastSide(name, r) === "high");
      const lo = g.filter((r) => contrastSide(name, r) === "low");
      low.push(...lo.map((r) => r.advantage));
      if (hi.length === 0 || lo.length === 0) continue;
      for (const part of ["advantage", "reward"] as const) {
        const d = meanOf(hi.map((r) => r[part])) - meanOf(lo.map((r) => r[part]));
        if (Number.isFinite(d)) diffs[part].push(d);
      }
    }
    for (const part of CONTRAST_PARTS) {
      const key = contrastKey(name, part);
      if (part === "groups") out[key] = diffs.advantage.length;
      else if (part === "low") out[key] = meanOf(low);
      else out[key] = meanOf(diffs[part]);
    }
  }
  for (const k of Object.keys(out) as (keyof typeof out)[])
    if (!Number.isFinite(out[k])) delete out[k];
  return out;
}
