/**
 * The rollout a callout links to (./callouts.ts): among the inspector groups
 * the page keeps for the callout's variant, the first rollout of the wanted
 * kind, searching from the callout's step back to step 0, then forward.
 * Pure: tested in Node.
 */
import type { GroupView } from "../../rl/step-types";
import { parseTrace } from "../../rewards/trace";
import type { ExampleWant } from "./callouts";

/** Where an example rollout is: enough for the inspector to open it. */
export interface RolloutRef {
  variant: string;
  step: number;
  promptId: string;
  seed?: number;
  /** Index of the rollout in its group. */
  index: number;
}

type Rollout = GroupView["rollouts"][number];

/**
 * Whether a rollout of group `g` is of the wanted kind (the inspector's
 * verifier and consistency columns; for a re-ask, the option content of the
 * first answer under the group's options against the second answer's under
 * the shuffled ones).
 */
function rolloutMatches(g: GroupView, r: Rollout, want: ExampleWant): boolean {
  switch (want) {
    case "right-inconsistent":
      return r.verifierPassed && r.judgment === "inconsistent";
    case "right-consistent":
      return r.verifierPassed && r.judgment === "consistent";
    case "wrong":
      return !r.verifierPassed;
    case "reask-changed": {
      if (!r.reask || !g.options) return false;
      const first = parseTrace({ text: r.text }).finalAnswer;
      const before = first !== null ? g.options[first.trim()] : undefined;
      const after = r.reask.answer !== null ? r.reask.options[r.reask.answer] : undefined;
      return before !== undefined && before !== after;
    }
  }
}

/** The first rollout `match` accepts, from `step` back to step 0, then forward. */
function searchRollouts(
  groups: readonly GroupView[],
  step: number,
  match: (g: GroupView, r: Rollout) => boolean,
): RolloutRef | null {
  const before = groups.filter((g) => g.step <= step).sort((a, b) => b.step - a.step);
  const after = groups.filter((g) => g.step > step).sort((a, b) => a.step - b.step);
  for (const g of [...before, ...after]) {
    const index = g.rollouts.findIndex((r) => match(g, r));
    if (index >= 0)
      return {
        variant: g.variant,
        step: g.step,
        promptId: g.promptId,
        ...(g.seed !== undefined ? { seed: g.seed } : {}),
        index,
      };
  }
  return null;
}

/**
 * The example rollout for a callout, or null when the kept groups have none.
 * @param groups the variant's kept groups (SamplesData.byVariant[variant]), any order.
 */
export function findExample(
  groups: readonly GroupView[],
  want: ExampleWant,
  step: number,
): RolloutRef | null {
  return searchRollouts(groups, step, (g, r) => rolloutMatches(g, r, want));
}

/**
 * A rollout of rollout class `cls` (RolloutView.rolloutClass, the metric
 * table's classes) among a variant's kept groups, searched like findExample;
 * null when none is kept (or the groups were recorded before classes were).
 */
export function findClassExample(
  groups: readonly GroupView[],
  cls: string,
  step: number,
): RolloutRef | null {
  return searchRollouts(groups, step, (_g, r) => r.rolloutClass === cls);
}
