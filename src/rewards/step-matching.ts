/**
 * Monotonic one-to-one matching of generated local results to reference
 * steps (StructReward §3 / docs/reward-spec.md §3): step i takes the EARLIEST
 * available reference j with a_i ≡ a⁺_j (lab choice: greedy earliest), and
 * only references after j stay available. A step written again right after
 * itself cannot match twice (the references it could match are used up), so
 * repetition never raises R_rule when the reference values are distinct.
 * Greedy-earliest is not the maximum matching: an extra step inserted EARLIER
 * can change later matches (accepted lab choice, docs/reward-spec.md §3).
 */
import type { ReferenceStep } from "../tasks/types";
import { answersEquivalent } from "./equivalence";

/** Reference steps as given by a prompt (ReferenceStep[]) or as bare values. */
export type ReferenceInput = ReadonlyArray<ReferenceStep | string>;

/** The reference values, whatever form they came in. Throws naming `referenceSteps` on bad input. */
export function referenceValues(referenceSteps: ReferenceInput): string[] {
  if (!Array.isArray(referenceSteps))
    throw new Error("referenceSteps must be an array of strings or {text, value}");
  return referenceSteps.map((s, i) => {
    if (typeof s === "string") return s;
    if (s && typeof s === "object" && typeof (s as ReferenceStep).value === "string")
      return (s as ReferenceStep).value;
    throw new Error(`referenceSteps[${i}] must be a string or {text, value}`);
  });
}

export interface StepMatch {
  /** z_i per generated step (1 = matched). */
  matched: boolean[];
  /** Reference index (0-based) each generated step matched, or -1. */
  matchedTo: number[];
  /** Σ z_i. */
  count: number;
}

/** Greedy-earliest monotonic matching; `generated[i]` null never matches. */
export function matchSteps(
  generated: ReadonlyArray<string | null>,
  reference: readonly string[],
): StepMatch {
  const matched: boolean[] = [];
  const matchedTo: number[] = [];
  let next = 0; // A_i = {next, …, N−1}
  let count = 0;
  for (const a of generated) {
    let hit = -1;
    if (a !== null) {
      for (let j = next; j < reference.length; j++) {
        if (answersEquivalent({ predicted: a, gold: reference[j] })) {
          hit = j;
          break;
        }
      }
    }
    matched.push(hit >= 0);
    matchedTo.push(hit);
    if (hit >= 0) {
      count++;
      next = hit + 1;
    }
  }
  return { matched, matchedTo, count };
}
