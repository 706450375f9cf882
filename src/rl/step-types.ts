/**
 * What one RL step produces for the rest of the lab: its metric values and
 * the rollout groups the inspector shows, defined with the step that makes
 * them (src/rl/rl-step.ts). A run (src/run/run-types.ts) stamps them with
 * its step, seed and time.
 */

import type { RolloutClassKey } from "../settings/credit-table";

/** Metric values of one step (or one eval) of one variant. */
export type MetricValues = Record<string, number>;

/** One rollout as the inspector shows it. */
interface RolloutView {
  text: string;
  total: number;
  components: Record<string, number>;
  verifierPassed: boolean;
  /** Consistency judgment of the trace vs its answer (GRR §4.1). */
  judgment: "consistent" | "inconsistent" | "na";
  /**
   * The held-out lucky-guess rate's test on this rollout (SCS Tab. 3's count;
   * src/rl/eval-metrics.ts isLuckyGuess): the answer is right but the
   * reasoning is not the reference solution's, whether or not the steps
   * conclude it (classes `flawed-right` and right `unsupported`).
   * Absent in groups kept before it was recorded.
   */
  luckyGuess?: boolean;
  /**
   * The rollout's class (../settings/credit-table.ts ROLLOUT_CLASSES,
   * ./rollout-class.ts). Absent in groups kept before it was recorded.
   */
  rolloutClass?: RolloutClassKey;
  /** Judge tier/rank (GRR) when the variant has a groupwise judge. */
  rank?: number | null;
  advantage: number;
  unscorable?: boolean;
  /**
   * SCS: where the rollout was cut (response tokens kept, and their text) and
   * each continuation's final answer (null: none parsed) and image-noise σ.
   */
  scs?: {
    keptTokens: number;
    keptText: string;
    continuations: { answer: string | null; sigma: number }[];
  };
  /**
   * ACRE: the options of the second ask, the answer given after the kept
   * trace (null: no `</think>` in the rollout, or no answer parsed), and the
   * rollout's own answer (null: none parsed), read with the group's options.
   */
  reask?: { options: Record<string, string>; answer: string | null; firstAnswer?: string | null };
  /** PRM: the learned PRM's score of each step, in [0, 1] (its smallest token probability over steps 1..k). */
  stepScores?: number[];
}

/** A group of rollouts for one prompt, kept per step (history). */
export interface GroupView {
  variant: string;
  step: number;
  promptId: string;
  question: string;
  options: Record<string, string> | null;
  answer: string;
  image: { data: Float32Array; height: number; width: number; channels: number };
  rollouts: RolloutView[];
  judgeReply?: string;
  /** Seed of the run the group came from in a multi-seed experiment (MetricRow.seed). */
  seed?: number;
}
