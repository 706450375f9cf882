/**
 * The SCS pass of one seed's first RL step, printed: the step's rollouts of
 * the shipped SCS cold start (the prompts, rollout seed and continuation seed
 * LabRun uses at step 1), each rollout's class (rolloutFacts), the m
 * continuations from its ⌊k·L⌋ kept tokens with their parsed answers, |𝒜|
 * and r_con. Shows what r_con a class is paid and why.
 *   npm run diag:scs-step1 -- [--seed S] [--class KEY]
 * Prints one JSON line per rollout (all rollouts, or those of CLASS).
 */
import { SCS_STEP1_TABLE } from "../src/cli/script-flags";
import { readCliFlags } from "../src/lib/cli-flags";
import { loadShippedCheckpoint, mnistFor, nodeContext } from "../src/cli/node-run";
import { LabEngine } from "../src/engine/lab-engine";
import { runModel } from "../src/engine/lab-model";
import { imageTensor, promptTensor, row } from "../src/engine/sequences";
import { SCS_NOISE_RANGE, scoreSCS } from "../src/rewards/scs";
import { parseTrace } from "../src/rewards/trace";
import { truncatedContinuations } from "../src/rl/passes";
import { rolloutFacts } from "../src/rl/rollout-class";
import { presetExperiment } from "../src/settings/presets";
import { scsPaperSettings } from "../src/settings/variant-table";
import { taskGeneratorFor } from "../src/run/run-tasks";
import { deriveSeed, Rng } from "../src/tasks/rng";
import { decodeResponse } from "../src/tasks/tokenizer";

async function main(): Promise<void> {
  const { flags } = readCliFlags(SCS_STEP1_TABLE);
  const seed = flags.seed;
  const only = flags.class;
  const exp = presetExperiment("scs-paper");
  const ckpt = loadShippedCheckpoint(exp);
  if (!ckpt) throw new Error("the shipped SCS cold start is missing");
  const tasks = taskGeneratorFor(exp, mnistFor(exp));
  const model = runModel(exp.modelSize, tasks, exp.evalSize);
  const ctx = await nodeContext();
  const engine = new LabEngine(ctx, ckpt.config, model.shape, ckpt.params);
  const policy = engine.createPolicy("p", { lr: 0, weightDecay: 0, maxGradNorm: 1 });
  const alg = exp.algorithm;
  const G = alg.groupSize;
  const { promptLen, maxNew } = engine.shape;
  // As LabRun.trainCopy at step 1.
  const prompts = tasks.sampleBatch(alg.batchPrompts, new Rng(deriveSeed(seed, "rl", 1)));
  const rolloutSeed = deriveSeed(seed, "rollout", 1);
  const gen = await engine.generate(
    policy,
    imageTensor(prompts, G),
    promptTensor(prompts, promptLen, G),
    {
      temperature: alg.temperature,
      topK: alg.topK,
      topP: alg.topP,
      greedy: false,
      seed: rolloutSeed,
    },
    G,
  );
  // The scs variant's defaults (variant table): RLOO's k 0.8, m 4, σ ∈ [0.01, 0.40].
  const settings = {
    ...scsPaperSettings("rloo"),
    sigmaMin: SCS_NOISE_RANGE.min,
    sigmaMax: SCS_NOISE_RANGE.max,
  };
  const { groups } = await truncatedContinuations(engine, policy, prompts, G, gen, settings, {
    alg,
    seed: rolloutSeed,
  });
  prompts.forEach((p, g) => {
    const texts = Array.from({ length: G }, (_, r) =>
      decodeResponse(row(gen.tokens, g * G + r, maxNew)),
    );
    const scored = scoreSCS(p, texts, groups[g].continuations ?? []);
    texts.forEach((text, r) => {
      const cls = rolloutFacts(p, text).cls;
      if (only && cls !== only) return;
      const conts = groups[g].continuations?.[r] ?? [];
      console.log(
        JSON.stringify({
          group: g,
          rollout: r,
          question: p.question,
          options: p.options,
          answer: p.answer,
          reference: p.referenceSteps.map((s) => s.value),
          cls,
          text,
          kept: groups[g].keptTokens?.[r],
          sigmas: groups[g].sigmas?.[r]?.map((s) => Number(s.toFixed(3))),
          continuations: conts.map((t) => {
            const q = parseTrace({ text: t });
            return { answer: q.answerTruncated ? null : q.finalAnswer, text: t };
          }),
          rCon: scored.rollouts[r].components.rCon,
          total: scored.rollouts[r].total,
        }),
      );
    });
  });
  ctx.destroy();
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
