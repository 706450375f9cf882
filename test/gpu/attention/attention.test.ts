/**
 * Checker of the attention family (shaders/attention/) against its f64 CPU
 * reference (src/kernels/attention/reference.ts): the training attention
 * (causal, PAD key mask; forward, both backward passes; scalar and vec4), and
 * kv_append + decode_attention (a causal prefill with PAD keys, then one
 * decode query over the cache; VEC and SCAL), on sizes that are not
 * multiples of 4 or of the 64-wide workgroup.
 */
import { describe, it } from "vitest";
import { useGpu } from "../../support/gpu";
import {
  attentionBackward,
  attentionBackwardRows,
  attentionForward,
  attentionForwardRows,
  decodeAttention,
  kvAppendCall,
} from "../../../src/kernels/attention/launch";
import {
  attentionBackward as attentionBackwardRef,
  attentionForward as attentionForwardRef,
} from "../../../src/kernels/attention/reference";
import { lossRows } from "../../../src/kernels/rows/launch";
import { seededNormal, seededUniform } from "../../../src/model/init";
import { expectClose } from "../../support/expect-close";
import { randArray } from "../../model/tiny";

function randn(n: number, seed: number, scale = 1): Float32Array {
  const r = seededNormal(seed);
  return Float32Array.from({ length: n }, () => r() * scale);
}

describe("attention kernels", () => {
  const gpu = useGpu();
  const f32 = (label: string, a: ArrayLike<number>) =>
    gpu.ctx.createBufferFrom(label, Float32Array.from(a));
  const i32 = (label: string, a: ArrayLike<number>) =>
    gpu.ctx.createBufferFrom(label, Int32Array.from(a));

  it.each([
    { B: 2, P: 4, L: 6, C: 16, NH: 2, variant: "scalar" },
    { B: 2, P: 4, L: 6, C: 16, NH: 2, variant: "vec4" },
    { B: 3, P: 5, L: 9, C: 12, NH: 3, variant: "scalar" },
    { B: 3, P: 5, L: 9, C: 12, NH: 3, variant: "vec4" },
    { B: 2, P: 3, L: 5, C: 12, NH: 2, variant: "scalar" }, // head size 6: scalar only
    { B: 1, P: 2, L: 3, C: 8, NH: 1, variant: "vec4" },
    { B: 2, P: 7, L: 11, C: 64, NH: 4, variant: "vec4" }, // the small model's head size 16
    // the workgroup-memory tiled kernels (forced: "auto" picks them on real GPUs only); T past
    // one 64-row block and one 32-key tile, head sizes 6, 16 and 32
    { B: 2, P: 4, L: 6, C: 16, NH: 2, variant: "tiled" },
    { B: 2, P: 3, L: 5, C: 12, NH: 2, variant: "tiled" },
    { B: 2, P: 32, L: 49, C: 64, NH: 4, variant: "tiled" },
    { B: 1, P: 40, L: 33, C: 64, NH: 2, variant: "tiled" },
  ] as const)(
    "attention forward and backward with PAD keys %o",
    async ({ B, P, L, C, NH, variant }) => {
      const T = P + L;
      const PAD = 0;
      const u = seededUniform(B * 100 + C);
      // left padding: example b has min(b+1, L−1) PADs; one extra PAD inside the prompt of example 0
      const tokens = Int32Array.from({ length: B * L }, (_, i) =>
        i % L < Math.min(Math.floor(i / L) + 1, L - 1) ? PAD : 1 + Math.floor(u() * 5),
      );
      if (L > 3) tokens[2] = PAD;
      const keyOk = Uint8Array.from({ length: B * T }, (_, i) =>
        i % T < P || tokens[Math.floor(i / T) * L + (i % T) - P] !== PAD ? 1 : 0,
      );
      const qkv = randArray(B * T * 3 * C, 11, -1.5, 1.5);
      const dout = randArray(B * T * C, 12);
      const out = new Float64Array(B * T * C),
        att = new Float64Array(B * NH * T * T),
        dqkv = new Float64Array(B * T * 3 * C);
      attentionForwardRef(out, att, qkv, keyOk, B, T, C, NH);
      attentionBackwardRef(dqkv, dout, qkv, att, B, T, C, NH);
      const b = {
        qkv: f32("qkv", qkv),
        tokens: i32("tokens", tokens),
        // NaN where nothing is written yet: a kernel that read att or dpre above the
        // diagonal (j > i, which no kernel needs) would spread it into out or dqkv.
        att: f32("att", new Float32Array(att.length).fill(Number.NaN)),
        out: gpu.ctx.createBuffer("out", out.length * 4),
        dout: f32("dout", dout),
        dpre: f32("dpre", new Float32Array(att.length).fill(Number.NaN)),
        dqkv: gpu.ctx.createBuffer("dqkv", dqkv.length * 4),
      };
      const dims = { B, T, C, NH, P, L, padId: PAD };
      gpu.ctx.run(attentionForward(gpu.ctx, b, dims, variant));
      for (const call of attentionBackward(gpu.ctx, b, dims, variant)) gpu.ctx.run(call);
      const gotAtt = await gpu.ctx.readF32(b.att, 0, att.length);
      const lower = (_: number, k: number) => k % T <= Math.floor(k / T) % T; // j ≤ i
      expectClose("att (j ≤ i)", gotAtt.filter(lower), att.filter(lower), 1e-6, 1e-4);
      expectClose("attn out", await gpu.ctx.readF32(b.out, 0, out.length), out, 1e-5, 1e-4);
      expectClose("dqkv", await gpu.ctx.readF32(b.dqkv, 0, dqkv.length), dqkv, 1e-5, 1e-3);
    },
  );

  it.each([
    { B: 2, P: 4, L: 6, C: 16, NH: 2 },
    { B: 3, P: 5, L: 9, C: 12, NH: 3 },
    { B: 1, P: 2, L: 3, C: 8, NH: 1 },
    { B: 3, P: 7, L: 11, C: 64, NH: 4 }, // the small model's head size 16
  ] as const)(
    "attention on packed query rows (a compacted last layer) %o",
    async ({ B, P, L, C, NH }) => {
      const T = P + L;
      const PAD = 0;
      const u = seededUniform(B * 31 + C);
      const tokens = Int32Array.from({ length: B * L }, (_, i) =>
        i % L < Math.min(Math.floor(i / L) + 1, L - 1) ? PAD : 1 + Math.floor(u() * 5),
      );
      const keyOk = Uint8Array.from({ length: B * T }, (_, i) =>
        i % T < P || tokens[Math.floor(i / T) * L + (i % T) - P] !== PAD ? 1 : 0,
      );
      // Loss rows: about half the text tokens, none in the last sequence when B > 1; padded to 4.
      const mask = Float32Array.from({ length: B * L }, (_, i) =>
        (B > 1 && i >= (B - 1) * L) || u() < 0.5 ? 0 : 1,
      );
      mask[1] = 1;
      const rows = lossRows(mask, B, L, P, 4);
      const R = rows.rows;
      const qkv = randArray(B * T * 3 * C, 21, -1.5, 1.5);
      // The gradient on the packed rows only (padding rows' entries must be ignored).
      const doutPacked = randArray(R * C, 22);
      const doutFull = new Float64Array(B * T * C);
      for (let r = 0; r < rows.kept; r++)
        for (let c = 0; c < C; c++) doutFull[rows.idx[r] * C + c] = doutPacked[r * C + c];
      const out = new Float64Array(B * T * C),
        att = new Float64Array(B * NH * T * T),
        dqkv = new Float64Array(B * T * 3 * C);
      attentionForwardRef(out, att, qkv, keyOk, B, T, C, NH);
      attentionBackwardRef(dqkv, doutFull, qkv, att, B, T, C, NH);
      const b = {
        qkv: f32("qkv", qkv),
        tokens: i32("tokens", tokens),
        idx: i32("idx", rows.idx),
        // Cleared by the caller too: the forward writes the packed rows' att rows only.
        att: gpu.ctx.createBuffer("att", att.length * 4),
        out: f32("out", new Float32Array(R * C).fill(9)),
        doutPacked: f32("doutPacked", doutPacked),
        dout: f32("dout", doutFull),
        // Cleared by the caller (the contract): the q pass writes the packed rows only.
        dpre: gpu.ctx.createBuffer("dpre", att.length * 4),
        dqkv: gpu.ctx.createBuffer("dqkv", dqkv.length * 4),
      };
      const dims = { B, T, C, NH, P, L, padId: PAD };
      gpu.ctx.run(attentionForwardRows(gpu.ctx, b, dims, R));
      for (const call of attentionBackwardRows(gpu.ctx, b, dims, R)) gpu.ctx.run(call);
      const packedOut = new Float64Array(R * C);
      for (let r = 0; r < rows.kept; r++)
        packedOut.set(out.subarray(rows.idx[r] * C, (rows.idx[r] + 1) * C), r * C);
      expectClose("packed out", await gpu.ctx.readF32(b.out, 0, R * C), packedOut, 1e-5, 1e-4);
      // att rows of the packed queries (j ≤ i) are the reference's.
      const gotAtt = await gpu.ctx.readF32(b.att, 0, att.length);
      const kept = (k: number) => {
        const row = Math.floor(k / T); // (b·NH + h)·T + i
        const i = row % T;
        const bb = Math.floor(row / (NH * T));
        return rows.inv[bb * T + i] >= 0 && k % T <= i;
      };
      const ks = Array.from({ length: att.length }, (_, k) => k).filter(kept);
      expectClose(
        "att (packed rows, j ≤ i)",
        ks.map((k) => gotAtt[k]),
        ks.map((k) => att[k]),
        1e-6,
        1e-4,
      );
      expectClose("dqkv", await gpu.ctx.readF32(b.dqkv, 0, dqkv.length), dqkv, 1e-5, 1e-3);
    },
  );

  // Geometry of the decode check: N sequences of P = 6 patch and L = 5 text positions.
  const P = 6,
    H = 2,
    N = 2,
    L = 5,
    T = P + L,
    PAD = 0;
  const text = Int32Array.from([0, 0, 3, 4, 5, 1, 0, 2, 9, 10]); // [N, L]; PAD inside and in front

  for (const [D, forceScalar] of [
    [20, false],
    [24, false],
    [24, true],
  ] as const) {
    it(`kv_append + decode_attention (hd ${D / H}, ${D % 8 || forceScalar ? "scalar" : "vec4"}): causal prefill with PAD keys, then a decode query over the cache`, async () => {
      const hd = D / H,
        S = T + 1,
        layers = 2,
        layer = 1;
      const layerOff = layer * N * H * S * hd;
      // Reference sequence of T+1 positions; the prefill covers the first T, the decode step the last.
      const T1 = T + 1;
      const text1 = new Int32Array(N * (L + 1));
      for (let n = 0; n < N; n++) {
        text1.set(text.subarray(n * L, (n + 1) * L), n * (L + 1));
        text1[n * (L + 1) + L] = 7;
      }
      const qkv1 = randn(N * T1 * 3 * D, 13, 1.5); // [N, T1, 3D]
      const keyOk = new Uint8Array(N * T1);
      for (let n = 0; n < N; n++)
        for (let t = 0; t < T1; t++)
          keyOk[n * T1 + t] = t < P || text1[n * (L + 1) + t - P] !== PAD ? 1 : 0;
      const ref = new Float64Array(N * T1 * D);
      attentionForwardRef(ref, new Float64Array(N * H * T1 * T1), qkv1, keyOk, N, T1, D, H);

      const prefillQkv = new Float32Array(N * T * 3 * D);
      const decodeQkv = new Float32Array(N * 3 * D);
      for (let n = 0; n < N; n++) {
        prefillQkv.set(qkv1.subarray(n * T1 * 3 * D, (n * T1 + T) * 3 * D), n * T * 3 * D);
        decodeQkv.set(qkv1.subarray((n * T1 + T) * 3 * D, (n * T1 + T1) * 3 * D), n * 3 * D);
      }
      const textB = gpu.ctx.createBufferFrom("text", text1);
      const state = gpu.ctx.createBufferFrom("state", new Uint32Array([0, PAD, 0, 0]));
      const kc = gpu.ctx.createBuffer("kc", layers * N * H * S * hd * 4);
      const vc = gpu.ctx.createBuffer("vc", layers * N * H * S * hd * 4);
      const out = gpu.ctx.createBuffer("out", N * T * D * 4);

      const cache = { D, H, S, layerOff };
      const seq = { P, textCap: L + 1, seqMul: 1 };
      const qp = gpu.ctx.createBufferFrom("qkv.prefill", prefillQkv);
      const prefillRows = { R: N * T, rowsPerSeq: T, posBase: 0, useState: 0 };
      gpu.ctx.run(kvAppendCall(gpu.ctx, { qkv: qp, state, kc, vc }, prefillRows, cache, 1));
      const b = { qkv: qp, kc, vc, text: textB, state, out };
      gpu.ctx.run(decodeAttention(gpu.ctx, b, prefillRows, cache, seq, forceScalar));
      const pre = await gpu.ctx.readF32(out, 0, N * T * D);
      const refPre = new Float64Array(N * T * D);
      for (let n = 0; n < N; n++) refPre.set(ref.subarray(n * T1 * D, (n * T1 + T) * D), n * T * D);
      expectClose("decode_attention prefill", pre, refPre);

      // Decode step: state[0] = 1 with posBase T − 1 → position T.
      gpu.ctx.write(state, new Uint32Array([1, PAD, 0, 0]));
      const qd = gpu.ctx.createBufferFrom("qkv.decode", decodeQkv);
      const stepRows = { R: N, rowsPerSeq: 1, posBase: T - 1, useState: 1 };
      gpu.ctx.run(kvAppendCall(gpu.ctx, { qkv: qd, state, kc, vc }, stepRows, cache, 1));
      gpu.ctx.run(decodeAttention(gpu.ctx, { ...b, qkv: qd }, stepRows, cache, seq, forceScalar));
      const dec = await gpu.ctx.readF32(out, 0, N * D);
      expectClose(
        "decode_attention step",
        dec,
        [0, 1].flatMap((n) => Array.from(ref.subarray((n * T1 + T) * D, (n * T1 + T1) * D))),
      );
    });
  }
});
