/**
 * Shapes shared by the variant-level scorers: every reward returns its total
 * AND its components per rollout, plus group information for the trainer and
 * the rollout inspector.
 */

export interface RolloutScore {
  /** The total reward R_i (NaN never appears: an unscorable rollout has total 0 and unscorable true). */
  total: number;
  /** Named components, e.g. { rVer: 1, rRank: 0.25 }. */
  components: Record<string, number>;
  verifierPassed: boolean;
  /** The reward could not be computed: leave it out of the advantage statistics. */
  unscorable?: boolean;
  /** Final answer as read, for the inspector. */
  answer: string | null;
  /** The PRM variant's score of each step (in [0, 1], step order), for the inspector; absent otherwise. */
  stepScores?: number[];
}

export interface GroupScore {
  rollouts: RolloutScore[];
  /** Judge calls made for this group. */
  judgeCalls: number;
  /** Judge replies that could not be parsed/repaired (metric). */
  judgeFailures: number;
  /** Groupwise tiers, best first, as rollout indices into the group (GRR only). */
  tiers?: number[][];
  /** Raw judge replies, for the inspector. */
  judgeOutputs?: string[];
}

/** Throws an Error naming `field` unless `value` is a finite number ≥ 0. */
export function requireNonNegative(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new Error(`${field} must be a finite number >= 0 (got ${String(value)})`);
  }
  return value;
}

/** Rewards of a group for `groupAdvantages`: unscorable rollouts become NaN. */
export function rewardsForAdvantages(group: GroupScore): number[] {
  return group.rollouts.map((r) => (r.unscorable ? NaN : r.total));
}
