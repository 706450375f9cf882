/**
 * Training the learned PRM on the GPU engine (docs/reward-spec.md §2, "PRM";
 * `npm run train:prm`): the tiny VLM, started from a shipped SFT cold start,
 * fine-tuned with the engine's SFT step on the true step traces of both
 * answer forms (src/prm/data.ts trueTraceQuery), cross-entropy on the
 * trace's tokens; measured on held-out correct and corrupted steps.
 */
import type { GpuContext } from "../gpu/context";
import type { ModelConfig } from "../model/config";
import type { TaskGenerator } from "../tasks/generator";
import { deriveSeed, Rng } from "../tasks/rng";
import { prmShape, heldOutExamples, trueTraceQuery, type PrmExample } from "./data";
import { rankAuc, stepAccuracy, stepMatchedAuc } from "./metrics";
import { prefixScore, type TokenLogprobForward } from "./scorer";
import { LabEngine, type Policy } from "../engine/lab-engine";
import { imageTensor, type TextShape } from "../engine/sequences";
import { PAD_ID } from "../tasks/tokenizer";
import { sftLearningRate } from "../engine/sft";

/** Step-level figures of a PRM on labelled steps. */
interface PrmFigures {
  steps: number;
  positives: number;
  accuracy: number;
  /** Pooled rank AUC over every correct / incorrect step pair. */
  auc: number;
  /** AUC over pairs at the same step number only (stepMatchedAuc): ½ for a step-number-only score. */
  stepMatchedAuc: number;
}

/** Accuracy and AUC of `forward` on `examples` (batches of `batch` rows). */
async function evaluatePrm(
  forward: TokenLogprobForward,
  shape: TextShape,
  examples: readonly PrmExample[],
  batch: number,
): Promise<PrmFigures> {
  const scores = new Float32Array(examples.length);
  for (let at = 0; at < examples.length; at += batch) {
    const part = examples.slice(at, at + batch);
    let len = 1;
    for (const e of part) len = Math.max(len, e.query.endCol);
    const tokens = new Int32Array(part.length * len);
    for (const [i, e] of part.entries()) tokens.set(e.query.tokens.subarray(0, len), i * len);
    const lp = await forward({
      n: part.length,
      images: imageTensor(part.map((e) => e.prompt)),
      tokens,
      len,
    });
    part.forEach((e, i) => {
      scores[at + i] = prefixScore(lp, i * len, shape.promptLen, e.query.endCol);
    });
  }
  const labels = examples.map((e) => e.label);
  return {
    steps: examples.length,
    positives: labels.reduce<number>((a, b) => a + b, 0),
    accuracy: stepAccuracy(scores, labels),
    auc: rankAuc(scores, labels),
    stepMatchedAuc: stepMatchedAuc(
      scores,
      labels,
      examples.map((e) => e.step),
    ),
  };
}

/**
 * The engine's forward as a TokenLogprobForward: rows padded with PAD to the
 * engine's text length and to `rows` rows (one graph for every call), the
 * engine's per-column log-probabilities (the RL step's `logprobs`), cut back
 * to [n, len].
 * @throws Error when a batch has more than `rows` rows or len > textLen.
 */
export function engineTokenLogprobs(
  engine: LabEngine,
  policy: Policy,
  rows: number,
): TokenLogprobForward {
  const L = engine.textLen;
  return async ({ n, images, tokens, len }) => {
    if (n > rows) throw new Error(`engineTokenLogprobs: ${n} rows over ${rows}`);
    if (len > L) throw new Error(`engineTokenLogprobs: ${len} columns over ${L}`);
    const size = images.length / n;
    const img = new Float32Array(rows * size);
    img.set(images);
    const tok = new Int32Array(rows * L).fill(PAD_ID);
    for (let i = 0; i < n; i++) tok.set(tokens.subarray(i * len, (i + 1) * len), i * L);
    const lp = (
      await engine.logprobs(policy, img, {
        tokens: tok,
        mask: new Float32Array(rows * L),
        lengths: new Int32Array(rows),
      })
    ).old;
    const out = new Float32Array(n * len);
    for (let i = 0; i < n; i++) out.set(lp.subarray(i * L, i * L + len), i * len);
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
  /** True traces per step (one per prompt). */
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
  /** Mean token cross-entropy of the last 10 steps (nats per trace token). */
  loss: number;
}

/**
 * Trains a PRM: AdamW (weight decay 0, gradient norm clipped at 1; lab
 * choice, as the lab's SFT) on `steps` batches of true traces,
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
  const forward = engineTokenLogprobs(engine, policy, o.batch);
  const figures = () => evaluatePrm(forward, shape, held, o.batch);
  const before = await figures();
  o.log(`before: ${JSON.stringify(before)}`);
  const L = engine.textLen;
  const losses: number[] = [];
  for (let step = 0; step < o.steps; step++) {
    const rng = new Rng(deriveSeed(o.seed, "prm", step));
    const prompts = Array.from({ length: o.batch }, () => rng.pick(o.tasks).sampleBatch(1, rng)[0]);
    const tokens = new Int32Array(o.batch * L);
    const mask = new Float32Array(o.batch * L);
    prompts.forEach((prompt, i) => {
      const q = trueTraceQuery(prompt, shape);
      tokens.set(q.tokens, i * L);
      // Loss on every token of the trace (column c's token is predicted by row c − 1).
      mask.fill(1, i * L + shape.promptLen, i * L + q.endCol);
    });
    const stats = await engine.sftUpdate(
      policy,
      imageTensor(prompts),
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
