// exportPolicyOnnx and createOnnxSession on the tiny test config (CPU only):
// logits against the f64 reference, the PAD mask mattering, a replaced head,
// and the errors for bad parameters, bad model bytes and bad run inputs.
import { describe, expect, it } from "vitest";
import { paramLayout } from "../../src/model/config";
import { initParams } from "../../src/model/init";
import { logSoftmaxForward, referenceForward } from "../../src/model/reference";
import { exportPolicyOnnx } from "../../src/onnx/export";
import { createOnnxSession } from "../../src/onnx/session";
import { TINY, tinyBatch } from "../model/tiny";

/** max|a − b| / max|b|. */
function relMax(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0;
  let m = 0;
  for (let i = 0; i < b.length; i++) {
    d = Math.max(d, Math.abs(a[i] - b[i]));
    m = Math.max(m, Math.abs(b[i]));
  }
  return d / m;
}

const params = initParams(TINY, 5);
const B = 3;
const L = 8; // P = 4, maxSeqLen 12
const batch = tinyBatch(TINY, B, L, 4, 9);

describe("exportPolicyOnnx on the tiny config", () => {
  it("gives the reference logits, and a wrong PAD id gives other logits", async () => {
    const ref = referenceForward(TINY, params, batch).logits;
    const s = await createOnnxSession(exportPolicyOnnx(TINY, params, { padId: batch.padId }));
    const got = await s.run(batch.images, batch.tokens, B);
    expect(got.length).toBe(B * L * TINY.vocabSize);
    expect(relMax(got, ref)).toBeLessThan(1e-5);
    // Every row starts with PAD (tinyBatch): masking id 1 instead moves the logits.
    const other = await createOnnxSession(exportPolicyOnnx(TINY, params, { padId: 1 }));
    expect(relMax(await other.run(batch.images, batch.tokens, B), ref)).toBeGreaterThan(1e-2);
    await s.release();
    await other.release();
  });

  it("a replaced head [d, 2] with bias gives two columns of the logits plus the bias", async () => {
    const d = TINY.dModel;
    const V = TINY.vocabSize;
    const hw = paramLayout(TINY).byName.get("head.w")!;
    const weight = new Float32Array(d * 2);
    for (let c = 0; c < d; c++) {
      weight[c * 2] = params[hw.offset + c * V + 5];
      weight[c * 2 + 1] = params[hw.offset + c * V + 7];
    }
    const bias = Float32Array.of(0.25, -1.5);
    const s = await createOnnxSession(
      exportPolicyOnnx(TINY, params, { head: { weight, outDim: 2, bias } }),
    );
    const got = await s.run(batch.images, batch.tokens, B);
    const ref = referenceForward(TINY, params, batch).logits;
    const want = new Float64Array(B * L * 2);
    for (let r = 0; r < B * L; r++) {
      want[r * 2] = ref[r * V + 5] + 0.25;
      want[r * 2 + 1] = ref[r * V + 7] - 1.5;
    }
    expect(got.length).toBe(B * L * 2);
    expect(relMax(got, want)).toBeLessThan(1e-5);
    await s.release();
  });

  it("token_logprobs: column c holds log-softmax(logits row c − 1)[token c], column 0 holds 0", async () => {
    const V = TINY.vocabSize;
    const ref = referenceForward(TINY, params, batch).logits;
    const logp = new Float64Array(ref.length);
    logSoftmaxForward(logp, ref, B * L, V);
    const want = new Float64Array(B * L);
    for (let b = 0; b < B; b++)
      for (let c = 1; c < L; c++)
        want[b * L + c] = logp[(b * L + c - 1) * V + batch.tokens[b * L + c]];
    const bytes = exportPolicyOnnx(TINY, params, { padId: batch.padId, tokenLogprobs: true });
    const s = await createOnnxSession(bytes, { output: "token_logprobs" });
    const got = await s.run(batch.images, batch.tokens, B);
    expect(got.length).toBe(B * L);
    expect(relMax(got, want)).toBeLessThan(1e-5);
    for (let b = 0; b < B; b++) expect(Math.abs(got[b * L])).toBe(0);
    // A policy file has no such output, and the option does not go with a replaced head.
    await expect(
      createOnnxSession(exportPolicyOnnx(TINY, params), { output: "token_logprobs" }),
    ).rejects.toThrow("ONNX model has outputs [logits], expected 'token_logprobs'");
    expect(() =>
      exportPolicyOnnx(TINY, params, {
        tokenLogprobs: true,
        head: { weight: new Float32Array(16), outDim: 1 },
      }),
    ).toThrow(/cannot go with a replaced head/);
    await s.release();
  });

  it("refuses bad parameters, PAD ids and heads, naming them", () => {
    const n = paramLayout(TINY).totalFloats;
    expect(() => exportPolicyOnnx(TINY, new Float32Array(n - 1))).toThrow(
      `params has ${n - 1} floats, paramLayout(config) needs ${n}`,
    );
    const bad = Float32Array.from(params);
    bad[17] = Number.NaN;
    expect(() => exportPolicyOnnx(TINY, bad)).toThrow(
      "params holds a non-finite value (NaN at index 17)",
    );
    expect(() => exportPolicyOnnx(TINY, params, { padId: 12 })).toThrow(
      "padId 12 is outside [0, 12)",
    );
    expect(() =>
      exportPolicyOnnx(TINY, params, { head: { weight: new Float32Array(5), outDim: 1 } }),
    ).toThrow("head.weight has 5 floats, expected dModel·outDim = 16");
    expect(() => exportPolicyOnnx({ ...TINY, dModel: 15 }, params)).toThrow(/config.dModel/);
  });
});

describe("createOnnxSession", () => {
  it("refuses bytes that are not a model, and bad run inputs, with clear errors", async () => {
    await expect(createOnnxSession(new Uint8Array([1, 2, 3, 4]))).rejects.toThrow(
      /^ONNX model could not be loaded: /,
    );
    await expect(createOnnxSession(new Uint8Array(0), { numThreads: 0 })).rejects.toThrow(
      "numThreads must be an integer in [1, 64], got 0",
    );
    await expect(createOnnxSession(new Uint8Array(0), { numThreads: 2 })).rejects.toThrow(
      /already runs with 1 thread\(s\) here; it cannot switch to 2/,
    );
    const s = await createOnnxSession(exportPolicyOnnx(TINY, params));
    await expect(s.run(batch.images, batch.tokens, 5)).rejects.toThrow(
      `images has ${B * 64} values, not a positive multiple of batch 5`,
    );
    // 2 rows of images for 3 rows of tokens: onnxruntime names the input
    await expect(s.run(batch.images, batch.tokens, 2)).rejects.toThrow(
      /ONNX run failed: .*invalid dimensions for input: images/,
    );
    const neg = Int32Array.from(batch.tokens);
    neg[3] = -1;
    await expect(s.run(batch.images, neg, B)).rejects.toThrow("token -1 at 3 is negative");
    const big = Int32Array.from(batch.tokens);
    big[3] = TINY.vocabSize;
    await expect(s.run(batch.images, big, B)).rejects.toThrow(/^ONNX run failed: /);
    // textLen 9 > maxSeqLen − P = 8
    await expect(s.run(batch.images, new Int32Array(B * 9), B)).rejects.toThrow(
      /^ONNX run failed: /,
    );
    await s.release();
  });
});
