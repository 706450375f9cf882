/**
 * LabEngine.policyUpdate on the batch's used text columns (src/engine/text-window.ts)
 * and with its last block and head on the loss rows only (compactRows),
 * against the same update over every column and every row (trimText and
 * compactRows false): the same loss statistics and the same gradient, on a
 * batch whose leading prompt columns and trailing response columns are PAD
 * in every row.
 */
import { describe, expect, it } from "vitest";
import { useGpu } from "../support/gpu";
import { initParams, seededUniform } from "../../src/model/init";
import { LabEngine } from "../../src/engine/lab-engine";
import { textWindow } from "../../src/engine/text-window";
import { PAD_ID } from "../../src/tasks/tokenizer";
import { expectClose } from "../support/expect-close";
import { TINY } from "../model/tiny";

const G = 4;
const shape = { promptLen: 4, maxNew: 4 };
const L = shape.promptLen + shape.maxNew;

describe("LabEngine policy update on the text window", () => {
  const gpu = useGpu();

  it("gives the statistics and the gradient of the update over every column", async () => {
    const u = seededUniform(9);
    const id = () => {
      let t = PAD_ID;
      while (t === PAD_ID) t = Math.floor(u() * TINY.vocabSize);
      return t;
    };
    // Rows: 2 or 3 leading PADs, a 2-token prompt tail, responses of 1–2 tokens, PAD after.
    const tokens = new Int32Array(G * L).fill(PAD_ID);
    const mask = new Float32Array(G * L);
    const lengths = Int32Array.from([1, 2, 2, 1]);
    for (let b = 0; b < G; b++) {
      for (let s = b % 2 === 0 ? 2 : 3; s < shape.promptLen; s++) tokens[b * L + s] = id();
      for (let s = 0; s < lengths[b]; s++) {
        tokens[b * L + shape.promptLen + s] = id();
        mask[b * L + shape.promptLen + s] = 1;
      }
    }
    const batch = { tokens, mask, lengths };
    expect(textWindow(batch, shape, 4)).toEqual({ start: 2, len: 4 });
    const images = Float32Array.from({ length: G * 64 }, () => u());
    const engine = new LabEngine(gpu.ctx, TINY, shape, initParams(TINY, 3));
    const adam = { lr: 1e-3, weightDecay: 0, maxGradNorm: 0 };
    const opts = {
      clipEps: 0.2,
      beta: 0.05,
      aggregation: "seq-mean-token-mean" as const,
      lr: 1e-3,
    };
    const adv = await engine.advantages([1, 0, 0.5, 0], G, "grpo", "sample", 1e-6);
    const n = engine.layout.totalFloats;
    const run = async (trim: boolean, compact: boolean) => {
      engine.trimText = trim;
      engine.compactRows = compact;
      const policy = engine.createPolicy(`p.${trim}.${compact}`, adam);
      const stats = await engine.policyUpdate(policy, images, batch, adv.kernel.advantages, opts);
      return { stats, grads: await gpu.ctx.readF32(engine.grads, 0, n) };
    };
    const full = await run(false, false);
    expect(full.grads.some((g) => g !== 0)).toBe(true);
    for (const [trim, compact] of [
      [true, false],
      [false, true],
      [true, true],
    ]) {
      const got = await run(trim, compact);
      const what = `trimText ${trim}, compactRows ${compact}`;
      expect(got.stats.tokens).toBe(full.stats.tokens);
      expectClose(
        `loss, kl, entropy, grad norm (${what})`,
        [got.stats.loss, got.stats.kl, got.stats.entropy, got.stats.gradNorm],
        [full.stats.loss, full.stats.kl, full.stats.entropy, full.stats.gradNorm],
        1e-6,
        1e-5,
      );
      expectClose(`gradient (${what})`, got.grads, full.grads, 1e-6, 1e-4);
    }
  });
});
