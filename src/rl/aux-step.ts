/**
 * StructReward's auxiliary step (StructReward §3.3–3.4, eq. 15–16;
 * docs/reward-spec.md §3, "Auxiliary training"): after the policy update
 * of an RL step, the step's rollouts and their hard negatives train the same
 * policy with target-sequence cross-entropy (./aux-examples.ts builds them).
 *
 * Lab choices (the paper gives no weight or schedule for L_recycle and
 * L_hard): one cross-entropy step per RL step on the policy's parameters
 * (LabEngine.sftUpdate: mean cross-entropy over the target tokens) with its own
 * AdamW state (LabEngine.auxOptimizer: the run's gradient clip, no weight
 * decay), at learning rate `lrScale` × the RL learning rate; its rows are
 * the step's rollout count, so it reuses the update's graph. Sharing the
 * policy update's AdamW state instead would carry the auxiliary gradients
 * (the loss starts near 12 nats/token on the drift preset's cold start)
 * into the next update's momentum at the full RL learning rate, whatever
 * `lrScale` is. With both options off nothing runs and the RL step is as
 * before.
 */
import { deriveSeed } from "../tasks/rng";
import type { TaskPrompt } from "../tasks/types";
import { mulberry32 } from "../rewards/index";
import type { LabEngine, Policy } from "../engine/lab-engine";
import { buildAuxBatch } from "./aux-examples";
import type { AuxConfig } from "../settings/aux-config";
import type { AuxMetricKey } from "../settings/metric-table";

/** The aux rows' metric values; `aux_loss` only when the auxiliary update ran. */
type AuxValues = Record<Exclude<AuxMetricKey, "aux_loss">, number> & { aux_loss?: number };

/**
 * Builds the step's auxiliary batch and trains `policy` on it once.
 * @param texts the step's rollout texts [P][G], @param lr the RL step's learning rate.
 * @param seed the RL step's seed (the A/B orders, rewrites and subset derive from it).
 * @returns the metric values of the aux rows: `aux_loss` (cross-entropy before
 *   the update; absent when no example qualified and nothing ran), the examples
 *   trained per kind, the dropped count, and `aux_ms`.
 * @throws Error on a NaN/Inf loss (the auxiliary update does not run), as LabEngine.sftUpdate.
 */
export async function auxStep(
  engine: LabEngine,
  policy: Policy,
  args: {
    prompts: readonly TaskPrompt[];
    texts: readonly (readonly string[])[];
    config: AuxConfig;
    lr: number;
    seed: number;
  },
): Promise<AuxValues> {
  const t0 = performance.now();
  const { prompts, texts, config } = args;
  const rows = texts.reduce((a, g) => a + g.length, 0);
  const aux = buildAuxBatch({
    prompts,
    texts,
    options: config,
    shape: engine.shape,
    rows,
    rng: mulberry32(deriveSeed(args.seed, "structreward-aux")),
  });
  const dropped = aux.dropped.tooLong + aux.dropped.untokenizable + aux.dropped.overBudget;
  const out: AuxValues = {
    aux_pointwise: aux.trained.pointwise,
    aux_pairwise: aux.trained.pairwise,
    aux_locate: aux.trained.locate,
    aux_choose: aux.trained.choose,
    aux_dropped: dropped,
    aux_ms: 0,
  };
  if (aux.examples.length > 0)
    out.aux_loss = (
      await engine.sftUpdate(
        policy,
        aux.images,
        aux.text,
        config.lrScale * args.lr,
        engine.auxOptimizer(policy),
      )
    ).loss;
  out.aux_ms = performance.now() - t0;
  return out;
}
