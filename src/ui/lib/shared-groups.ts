/**
 * The copies of a group under the run's other variants, where the group is
 * shared: at step 1 every variant of a seed starts from the same cold start
 * and draws the same prompts and rollouts (docs/design.md, `LabRun.trainCopy`),
 * so the same rollout can be shown under each variant's update. A copy counts
 * only when its step, seed, question, answer and every rollout's text are the
 * group's (not its prompt id: each variant numbers its own prompts).
 * Pure: tested in Node.
 */
import type { GroupView } from "../../rl/step-types";

/** The shared copies of `group` in the other variants, in their order (none after step 1). */
export function sharedGroups(
  group: GroupView,
  byVariant: Readonly<Record<string, readonly GroupView[]>>,
): GroupView[] {
  const out: GroupView[] = [];
  if (group.step !== 1) return out;
  for (const [v, groups] of Object.entries(byVariant)) {
    if (v === group.variant) continue;
    const twin = groups.find(
      (g) =>
        g.step === group.step &&
        g.question === group.question &&
        g.answer === group.answer &&
        g.seed === group.seed &&
        g.rollouts.length === group.rollouts.length &&
        g.rollouts.every((r, i) => r.text === group.rollouts[i].text),
    );
    if (twin) out.push(twin);
  }
  return out;
}
