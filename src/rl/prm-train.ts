/**
 * Training the learned PRM on the GPU engine (docs/reward-spec.md §2, "PRM";
 * `npm run train:prm`): the tiny VLM, started from a shipped SFT cold start,
 * fine-tuned with the engine's SFT step on balanced verdict sequences
 * (src/rl/prm-data.ts), cross-entropy on the verdict token only.
 */
import type { GpuContext } from "../gpu/context";
import type { ModelConfig } from "../model/config";
import type { TaskGenerator } from "../tasks/generator";
import { deriveSeed, Rng } from "../tasks/rng";
import {
  prmShape,
  CORRECT_ID,
  INCORRECT_ID,
  heldOutExamples,
  trainingExample,
  type PrmExample,
} from "./prm-data";
import { rankAuc, stepAccuracy } from "./prm-metrics";
import type { VerdictForward } from "./prm-scorer";
import { LabEngine, type Policy } from "./engine";
import { imageTensor } from "./sequences";
import { sftLearningRate } from "./sft";

/** Step-level figures of a PRM on labelled steps. */
interface PrmFigures {
  steps: number;
  positives: number;
  accuracy: number;
  auc: number;
}

/** Accuracy and AUC of `forward` on `examples` (batches of `batch` queries). */
async function evaluatePrm(
  forward: VerdictForward,
  examples: readonly PrmExample[],
  batch: number,
): Promise<PrmFigures> {
  const scores = new Float32Array(examples.length);
  for (let at = 0; at < examples.length; at += batch) {
    const part = examples.slice(at, at + batch);
    const L = part[0].query.tokens.length;
    const tokens = new Int32Array(part.length * L);
    const cols = new Int32Array(part.length);
    part.forEach((e, i) => {
      tokens.set(e.query.tokens, i * L);
      cols[i] = e.query.verdictCol;
    });
    scores.set(
      await forward({
        n: part.length,
        images: imageTensor(part.map((e) => e.prompt)),
        tokens,
        cols,
      }),
      at,
    );
  }
  const labels = examples.map((e) => e.label);
  return {
    steps: examples.length,
    positives: labels.reduce<number>((a, b) => a + b, 0),
    accuracy: stepAccuracy(scores, labels),
    auc: rankAuc(scores, labels),
  };
}

/**
 * The engine's forward as a VerdictForward: each query runs twice in one
 * batch of `rows` rows, with `Correct` and with `Incorrect` in the verdict
 * slot; score = σ(logp(Correct) − logp(Incorrect)) at the verdict column.
 * Batches are padded to `rows` rows (one graph for every call).
 * @throws Error when a batch has more than rows/2 queries.
 */
export function engineVerdictForward(
  engine: LabEngine,
  policy: Policy,
  rows: number,
): VerdictForward {
  const L = engine.textLen;
  return async ({ n, images, tokens, cols }) => {
    if (2 * n > rows) throw new Error(`engineVerdictForward: ${n} queries over ${rows / 2}`);
    const size = images.length / n;
    const img = new Float32Array(rows * size);
    const tok = new Int32Array(rows * L);
    for (let i = 0; i < n; i++) {
      for (const [r, verdict] of [
        [i, CORRECT_ID],
        [n + i, INCORRECT_ID],
      ] as const) {
        img.set(images.subarray(i * size, (i + 1) * size), r * size);
        tok.set(tokens.subarray(i * L, (i + 1) * L), r * L);
        tok[r * L + cols[i]] = verdict;
      }
    }
    const mask = new Float32Array(rows * L);
    const lp = (
      await engine.logprobs(policy, img, { tokens: tok, mask, lengths: new Int32Array(rows) })
    ).old;
    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      const c = lp[i * L + cols[i]];
      const w = lp[(n + i) * L + cols[i]];
      out[i] = 1 / (1 + Math.exp(w - c));
    }
    return out;
  };
}

/** Options of trainPrm. */
export interface PrmTrainOptions {
  /** The cold start the PRM starts from: its config and flat parameters. */
  init: { config: ModelConfig; params: Float32Array };
  /** Prompt sources; each example draws one uniformly (e.g. open-ended and multiple-choice). */
  tasks: readonly TaskGenerator[];
  steps: number;
  /** Examples per step (one per prompt). */
  batch: number;
  /** Peak learning rate of the warm-up + cosine schedule (sftLearningRate). */
  lr: number;
  seed: number;
  /** Held-out prompts per task source for the figures. */
  evalSize: number;
  /** Figures every this many steps (0: only before and after). */
  evalEvery: number;
  log: (line: string) => void;
}

/** What trainPrm returns. */
export interface PrmTrainResult {
  params: Float32Array;
  before: PrmFigures;
  after: PrmFigures;
  /** Mean verdict cross-entropy of the last 10 steps (nats). */
  loss: number;
}

/**
 * Trains a PRM: AdamW (weight decay 0, gradient norm clipped at 1; lab
 * choice, as the lab's SFT) on `steps` batches of balanced examples,
 * figures on the held-out steps of every source's eval split before, every
 * `evalEvery` steps, and after.
 */
export async function trainPrm(ctx: GpuContext, o: PrmTrainOptions): Promise<PrmTrainResult> {
  const shape = prmShape(o.init.config);
  const engine = new LabEngine(ctx, o.init.config, shape, o.init.params);
  const policy = engine.createPolicy("prm", { lr: o.lr, weightDecay: 0, maxGradNorm: 1 });
  const evalRng = new Rng(deriveSeed(o.seed, "prm-eval"));
  const held = o.tasks.flatMap((t) =>
    heldOutExamples(t.evalSet({ size: o.evalSize }), shape, evalRng),
  );
  const forward = engineVerdictForward(engine, policy, o.batch);
  const evalBatch = Math.max(1, Math.floor(o.batch / 2));
  const figures = () => evaluatePrm(forward, held, evalBatch);
  const before = await figures();
  o.log(`before: ${JSON.stringify(before)}`);
  const L = engine.textLen;
  const losses: number[] = [];
  for (let step = 0; step < o.steps; step++) {
    const rng = new Rng(deriveSeed(o.seed, "prm", step));
    const examples = Array.from({ length: o.batch }, () => {
      const tasks = rng.pick(o.tasks);
      return trainingExample(tasks.sampleBatch(1, rng)[0], shape, rng);
    });
    const tokens = new Int32Array(o.batch * L);
    const mask = new Float32Array(o.batch * L);
    examples.forEach((e, i) => {
      tokens.set(e.query.tokens, i * L);
      mask[i * L + e.query.verdictCol] = 1;
    });
    const stats = await engine.sftStep(
      policy,
      imageTensor(examples.map((e) => e.prompt)),
      { tokens, mask, lengths: new Int32Array(o.batch) },
      sftLearningRate(step, o.steps, o.lr),
    );
    losses.push(stats.loss);
    if ((step + 1) % 10 === 0)
      o.log(
        `step ${step + 1}/${o.steps}: loss ${(losses.slice(-10).reduce((a, b) => a + b, 0) / 10).toFixed(4)}`,
      );
    if (o.evalEvery > 0 && (step + 1) % o.evalEvery === 0 && step + 1 < o.steps)
      o.log(`step ${step + 1}: ${JSON.stringify(await figures())}`);
  }
  const after = await figures();
  const tail = losses.slice(-10);
  return {
    params: await engine.readParams(policy.params),
    before,
    after,
    loss: tail.length > 0 ? tail.reduce((a, b) => a + b, 0) / tail.length : Number.NaN,
  };
}
