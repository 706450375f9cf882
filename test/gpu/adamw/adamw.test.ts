/**
 * Checker of the optimizer family (shaders/adamw/: grad_norm_partial,
 * grad_norm_finalize, adamw; launcher src/kernels/adamw/launch.ts) against
 * its f64 CPU reference (src/kernels/adamw/reference.ts): three steps with clipping active and
 * inactive, weight decay on matrices only, the reported gradient norm, a
 * skipped step on a non-finite gradient, and no allocation per step.
 */
import { describe, expect, it } from "vitest";
import { useGpu } from "../../support/gpu";
import { AdamW, decayBlockMask, type AdamWOptions } from "../../../src/kernels/adamw/launch";
import {
  adamwStepRef,
  decayFloatMask,
  type AdamWRefState,
} from "../../../src/kernels/adamw/reference";
import { paramLayout, type ModelConfig } from "../../../src/model/config";
import type { ParamLayout } from "../../../src/layout/param-layout";
import { seededNormal } from "../../../src/model/init";
import { expectClose } from "../../support/expect-close";

const TINY: ModelConfig = {
  imageHeight: 8,
  imageWidth: 8,
  imageChannels: 1,
  patchSize: 4,
  dModel: 16,
  nLayers: 1,
  nHeads: 2,
  mlpRatio: 4,
  vocabSize: 19,
  maxSeqLen: 12,
};

/** A layout whose vec4 count (592) is not a multiple of the 64-invocation workgroup. */
const ODD_LAYOUT: Pick<ParamLayout, "tensors" | "totalFloats"> = {
  tensors: [
    { name: "w", shape: [30, 41], offset: 0, size: 1230 },
    { name: "b", shape: [41], offset: 1280, size: 41 },
    { name: "w2", shape: [7, 139], offset: 1344, size: 973 },
  ],
  totalFloats: 2368,
};

/** Random values on the real tensor slots, 0 on the layout padding (as the backward pass leaves it). */
function randomOnTensors(
  layout: Pick<ParamLayout, "tensors" | "totalFloats">,
  seed: number,
  scale: number,
): Float32Array {
  const out = new Float32Array(layout.totalFloats);
  const randn = seededNormal(seed);
  for (const t of layout.tensors)
    for (let i = 0; i < t.size; i++) out[t.offset + i] = randn() * scale;
  return out;
}

describe("AdamW with gradient clipping", () => {
  const gpu = useGpu();

  async function runCase(
    layout: Pick<ParamLayout, "tensors" | "totalFloats">,
    opts: AdamWOptions,
    gradScale: number,
    maxWorkgroups?: number,
  ) {
    const p0 = randomOnTensors(layout, 1, 0.5);
    const params = gpu.ctx.createBufferFrom("test.params", p0);
    const grads = gpu.ctx.createBuffer("test.grads", layout.totalFloats * 4);
    const opt = new AdamW(gpu.ctx, layout, params, grads, opts, { maxWorkgroups });
    const ref: AdamWRefState = {
      params: Float64Array.from(p0),
      m: new Float64Array(layout.totalFloats),
      v: new Float64Array(layout.totalFloats),
      t: 0,
    };
    const mask = decayFloatMask(layout);
    const norms: Array<[number, number]> = [];
    for (let step = 0; step < 3; step++) {
      const g = randomOnTensors(layout, 100 + step, gradScale * (1 + step));
      gpu.ctx.write(grads, g);
      opt.step();
      const stats = await opt.readStats();
      const r = adamwStepRef(ref, g, mask, opts);
      expect(stats.finite).toBe(true);
      expect(Math.abs(stats.gradNorm - r.gradNorm) / r.gradNorm).toBeLessThan(1e-5);
      expect(Math.abs(stats.clipScale - r.clipScale)).toBeLessThan(1e-5 * Math.max(1, r.clipScale));
      norms.push([stats.gradNorm, stats.clipScale]);
      // Compare every step: an error in t or the bias corrections shows at once.
      const after = `after step ${step + 1}`;
      expectClose(`params ${after}`, await gpu.ctx.readF32(params), ref.params, 1e-6, 1e-4);
      expectClose(`m ${after}`, await gpu.ctx.readF32(opt.m), ref.m, 1e-9, 1e-4);
      expectClose(`v ${after}`, await gpu.ctx.readF32(opt.v), ref.v, 1e-12, 1e-4);
    }
    for (const b of [params, grads, opt.m, opt.v]) b.destroy();
    return { norms, p0, ref, opt };
  }

  it("matches the f64 reference over 3 steps with clipping active (tiny model layout)", async () => {
    const layout = paramLayout(TINY);
    const { norms } = await runCase(layout, { lr: 1e-2, weightDecay: 0.1, maxGradNorm: 0.5 }, 0.3);
    for (const [norm, scale] of norms) {
      expect(norm).toBeGreaterThan(0.5);
      expect(scale).toBeLessThan(1); // clipping was active on every step
      expect(scale).toBeCloseTo(0.5 / (norm + 1e-6), 5);
    }
  });

  it("matches the f64 reference over 3 steps with clipping inactive (threshold above the norm, and disabled)", async () => {
    const layout = paramLayout(TINY);
    const a = await runCase(
      layout,
      { lr: 3e-3, beta1: 0.8, beta2: 0.99, weightDecay: 0.05, maxGradNorm: 1e6 },
      0.01,
    );
    for (const [, scale] of a.norms) expect(scale).toBe(1);
    const b = await runCase(layout, { lr: 3e-3, maxGradNorm: 0 }, 5);
    for (const [norm, scale] of b.norms) {
      expect(norm).toBeGreaterThan(10);
      expect(scale).toBe(1);
    }
  });

  it("handles a size that is not a multiple of the workgroup, and the grid-stride loop", async () => {
    await runCase(ODD_LAYOUT, { lr: 1e-2, weightDecay: 0.2, maxGradNorm: 1 }, 0.1, 3);
  });

  it("applies weight decay to 2-D tensors only", async () => {
    const layout = paramLayout(TINY);
    const mask = decayBlockMask(layout);
    for (const t of layout.tensors) {
      const block = mask[t.offset / 64];
      expect(block, t.name).toBe(t.shape.length === 2 ? 1 : 0);
    }
    // With zero gradients, only decay moves the parameters: matrices shrink by (1 − lr·wd), the rest stay.
    const p0 = randomOnTensors(layout, 3, 1);
    const params = gpu.ctx.createBufferFrom("wd.params", p0);
    const grads = gpu.ctx.createBuffer("wd.grads", layout.totalFloats * 4);
    const opt = new AdamW(gpu.ctx, layout, params, grads, { lr: 0.1, weightDecay: 0.5 });
    opt.step();
    const p1 = await gpu.ctx.readF32(params);
    const wte = layout.byName.get("wte")!;
    const gain = layout.byName.get("h.0.ln1.g")!;
    const bias = layout.byName.get("h.0.attn.bqkv")!;
    expect(p1[wte.offset + 3]).toBeCloseTo(p0[wte.offset + 3] * 0.95, 6);
    expect(p1[gain.offset + 3]).toBe(p0[gain.offset + 3]);
    expect(p1[bias.offset + 3]).toBe(p0[bias.offset + 3]);
    expect((await opt.readStats()).gradNorm).toBe(0);
  });

  it("skips the step on a non-finite gradient and reports it", async () => {
    const layout = paramLayout(TINY);
    const p0 = randomOnTensors(layout, 5, 1);
    const params = gpu.ctx.createBufferFrom("nan.params", p0);
    const g = randomOnTensors(layout, 6, 1);
    g[17] = NaN;
    const grads = gpu.ctx.createBufferFrom("nan.grads", g);
    const opt = new AdamW(gpu.ctx, layout, params, grads, { lr: 0.1, weightDecay: 0.1 });
    opt.step();
    const stats = await opt.readStats();
    expect(stats.finite).toBe(false);
    expect(stats.clipScale).toBe(0);
    expect(Array.from(await gpu.ctx.readF32(params))).toEqual(Array.from(p0));
    expect((await gpu.ctx.readF32(opt.m)).every((x) => x === 0)).toBe(true);
    g[17] = Infinity;
    gpu.ctx.write(grads, g);
    opt.step();
    expect((await opt.readStats()).finite).toBe(false);
  });

  it("allocates nothing per step over 100 steps and changes hyperparameters without rebuilding", async () => {
    const layout = paramLayout(TINY);
    const params = gpu.ctx.createBufferFrom("alloc.params", randomOnTensors(layout, 8, 1));
    const grads = gpu.ctx.createBufferFrom("alloc.grads", randomOnTensors(layout, 9, 1));
    const opt = new AdamW(gpu.ctx, layout, params, grads, { lr: 1e-3 });
    opt.step();
    await opt.readStats();
    const before = gpu.ctx.stats.buffersCreated;
    const pipelines = gpu.ctx.stats.pipelinesCreated;
    for (let i = 0; i < 100; i++) {
      opt.step(1e-3 * (1 - i / 100)); // a schedule: new lr every step
      if (i % 10 === 0) opt.setOptions({ maxGradNorm: 0.5 + i / 100 });
      gpu.ctx.flush();
    }
    await opt.readStats();
    expect(opt.t).toBe(101);
    expect(gpu.ctx.stats.buffersCreated).toBe(before);
    expect(gpu.ctx.stats.pipelinesCreated).toBe(pipelines);
    expect(() => opt.setOptions({ beta2: 1 })).toThrow(/beta2/);
    expect(() => opt.setOptions({ lr: NaN })).toThrow(/lr/);
  });
});
