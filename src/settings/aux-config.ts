/**
 * StructReward's auxiliary step as a variant setting (the variant table's
 * `auxiliary`): which example families a step builds and at what learning
 * rate. The RL side (src/rl/aux-examples.ts, src/rl/aux-step.ts) builds and
 * trains them.
 */

/** Which example families a step builds (the StructReward variant's `recycle`, `hardNegatives`). */
export interface AuxOptions {
  /** Rollout recycling: pointwise and pairwise examples (StructReward §3.3). */
  recycle: boolean;
  /** Hard negatives: locate and choose examples (StructReward §3.4). */
  hardNegatives: boolean;
}

/** A variant's auxiliary step settings (the variant table's `auxiliary`). */
export interface AuxConfig extends AuxOptions {
  /** The auxiliary learning rate as a multiple of the RL step's lr (lab choice, default 1). */
  lrScale: number;
}
