/**
 * Checker of the matmul family (shaders/matmul/) against its f64 CPU
 * reference (src/kernels/matmul/reference.ts), on sizes that are not
 * multiples of the register blocks: the training matmuls (forward with fused
 * bias/residual, dX, dW + bias sums; scalar, vec4 and 16×8 versions) and the
 * decode matmul (vec4 and scalar-W variants; store, GELU, residual-add; with
 * and without bias).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { useGpu } from "../../support/gpu";
import { GpuContext } from "../../../src/gpu/context";
import { requestNodeDevice } from "../../../src/gpu/node-gpu";
import {
  decodeMatmul,
  matmulBackwardDw,
  matmulBackwardDx,
  matmulForward,
  type MatmulEpilogue,
  type MatmulVariant,
} from "../../../src/kernels/matmul/launch";
import {
  matmulBackward,
  matmulForward as matmulForwardRef,
} from "../../../src/kernels/matmul/reference";
import { geluForward } from "../../../src/model/reference";
import { seededNormal } from "../../../src/model/init";
import { expectClose } from "../../support/expect-close";
import { randArray } from "../../model/tiny";

function randn(n: number, seed: number, scale = 1): Float32Array {
  const r = seededNormal(seed);
  return Float32Array.from({ length: n }, () => r() * scale);
}

const SIZES: Array<[number, number, number]> = [
  [1, 1, 1],
  [5, 7, 9],
  [13, 49, 16],
  [33, 16, 48],
  [20, 64, 196],
  [7, 3, 5],
  [9, 12, 4],
  [6, 4, 8],
  [3, 20, 12],
];
// every size through the scalar kernels, and through the vec4 kernels where they apply
const CASES: Array<[MatmulVariant, number, number, number]> = [
  ...SIZES.map(([M, K, N]) => ["scalar", M, K, N] as [MatmulVariant, number, number, number]),
  ...SIZES.filter(([, , N]) => N % 4 === 0).map(
    ([M, K, N]) => ["vec4", M, K, N] as [MatmulVariant, number, number, number],
  ),
  // the workgroup-memory tiled kernels (forced here: "auto" picks them on real GPUs only),
  // every size plus sizes that cross the 64×64 tile and the 16-wide step in each dimension
  ...[...SIZES, [130, 70, 65], [64, 16, 64], [65, 17, 129], [1, 33, 1]].map(
    ([M, K, N]) => ["tiled", M, K, N] as [MatmulVariant, number, number, number],
  ),
];
// the forward's 16×8-tile variant where N % 8 = 0 (K % 4 = 0 is filtered below), plus sizes with M not a multiple of 16
const FORWARD_16x8: Array<[MatmulVariant, number, number, number]> = [
  ...SIZES.filter(([, , N]) => N % 8 === 0).map(
    ([M, K, N]) => ["vec4x16", M, K, N] as [MatmulVariant, number, number, number],
  ),
  ["vec4x16", 37, 20, 24],
  ["vec4x16", 16, 8, 8],
];

// the backward's 16×8-tile variants: dX where N % 4 = 0, dW where also K % 4 = 0 and N % 8 = 0
// (else dW falls back as in dwVariantOf); sizes off the 16-row and 8-column blocks
const BACKWARD_16x8: Array<[MatmulVariant, number, number, number]> = [
  [33, 16, 48],
  [6, 4, 8],
  [37, 20, 24],
  [16, 8, 8],
  [50, 36, 64],
  [17, 12, 40],
  [20, 64, 196],
  [3, 20, 12],
].map(([M, K, N]) => ["vec4x16", M, K, N] as [MatmulVariant, number, number, number]);

/** The dW variant a backward case runs: the asked one where the sizes allow it, else the next narrower. */
function dwVariantOf(variant: MatmulVariant, K: number, N: number): MatmulVariant {
  if ((variant === "vec4" || variant === "vec4x16") && K % 4 !== 0) return "scalar";
  if (variant === "vec4x16" && N % 8 !== 0) return "vec4";
  return variant;
}

describe("matmul kernels", () => {
  const gpu = useGpu();
  let dummy: GPUBuffer;
  beforeAll(async () => {
    dummy = gpu.ctx.createBuffer("dummy", 16);
  });

  it.each(
    [...CASES, ...FORWARD_16x8].filter(
      ([v, , K]) => v === "scalar" || v === "tiled" || K % 4 === 0,
    ),
  )("%s forward y = x·W + b + res at M=%i K=%i N=%i", async (variant, M, K, N) => {
    const x = randArray(M * K, 1);
    const w = randArray(K * N, 2);
    const bias = randArray(N, 3);
    const res = randArray(M * N, 4);
    const ref = new Float64Array(M * N);
    matmulForwardRef(ref, x, w, bias, M, K, N);
    const bx = gpu.ctx.createBufferFrom("x", x),
      bw = gpu.ctx.createBufferFrom("w", w);
    const bb = gpu.ctx.createBufferFrom("b", bias),
      br = gpu.ctx.createBufferFrom("res", res);
    const y = gpu.ctx.createBuffer("y", M * N * 4);
    gpu.ctx.run(
      matmulForward(gpu.ctx, { x: bx, w: bw, bias: bb, res: null, y, dummy }, M, K, N, variant),
    );
    expectClose("y", await gpu.ctx.readF32(y, 0, M * N), ref, 1e-5, 1e-4);
    gpu.ctx.run(
      matmulForward(gpu.ctx, { x: bx, w: bw, bias: bb, res: br, y, dummy }, M, K, N, variant),
    );
    expectClose(
      "y+res",
      await gpu.ctx.readF32(y, 0, M * N),
      ref.map((v, i) => v + res[i]),
      1e-5,
      1e-4,
    );
    gpu.ctx.run(
      matmulForward(gpu.ctx, { x: bx, w: bw, bias: null, res: null, y, dummy }, M, K, N, variant),
    );
    const nob = new Float64Array(M * N);
    matmulForwardRef(nob, x, w, null, M, K, N);
    expectClose("y (no bias)", await gpu.ctx.readF32(y, 0, M * N), nob, 1e-5, 1e-4);
  });

  it.each([...CASES, ...BACKWARD_16x8])(
    "%s backward dX, dW, db at M=%i K=%i N=%i",
    async (variant, M, K, N) => {
      const dwVariant = dwVariantOf(variant, K, N);
      const x = randArray(M * K, 5);
      const w = randArray(K * N, 6);
      const dy = randArray(M * N, 7);
      const dx0 = randArray(M * K, 8);
      const dw0 = randArray(K * N, 9);
      const db0 = randArray(N, 10);
      const dxRef = new Float64Array(M * K);
      const dwRef = Float64Array.from(dw0);
      const dbRef = Float64Array.from(db0);
      matmulBackward(dxRef, dwRef, dbRef, dy, x, w, M, K, N);
      const bx = gpu.ctx.createBufferFrom("x", x),
        bw = gpu.ctx.createBufferFrom("w", w),
        bdy = gpu.ctx.createBufferFrom("dy", dy);
      const dx = gpu.ctx.createBufferFrom("dx", dx0),
        dw = gpu.ctx.createBufferFrom("dw", dw0),
        db = gpu.ctx.createBufferFrom("db", db0);
      gpu.ctx.run(matmulBackwardDx(gpu.ctx, { dy: bdy, w: bw, dx }, M, K, N, false, variant));
      gpu.ctx.run(
        matmulBackwardDw(gpu.ctx, { x: bx, dy: bdy, dw, dbias: db, dummy }, M, K, N, dwVariant),
      );
      expectClose("dx", await gpu.ctx.readF32(dx, 0, M * K), dxRef, 1e-5, 1e-4);
      expectClose("dw (accumulated)", await gpu.ctx.readF32(dw, 0, K * N), dwRef, 1e-5, 1e-4);
      expectClose("db (accumulated)", await gpu.ctx.readF32(db, 0, N), dbRef, 1e-5, 1e-4);
      // accumulate mode of dX
      gpu.ctx.run(matmulBackwardDx(gpu.ctx, { dy: bdy, w: bw, dx }, M, K, N, true, variant));
      expectClose(
        "dx (accumulated)",
        await gpu.ctx.readF32(dx, 0, M * K),
        dxRef.map((v) => 2 * v),
        1e-5,
        1e-4,
      );
    },
  );

  // The 16×8 backward tiles sum every element in the 8×4 block's order: the same bits, so a
  // run's figures do not move when "auto" picks them.
  it.each([
    [37, 20, 24],
    [130, 64, 192],
    [65, 256, 64],
  ])("vec4x16 backward writes the vec4 kernels' bits at M=%i K=%i N=%i", async (M, K, N) => {
    const x = gpu.ctx.createBufferFrom("x", randn(M * K, 11));
    const w = gpu.ctx.createBufferFrom("w", randn(K * N, 12));
    const dy = gpu.ctx.createBufferFrom("dy", randn(M * N, 13, 0.1));
    const out: Float32Array[][] = [];
    const wx = gpu.ctx.createBufferFrom("wx", randn(M * N, 17));
    const bias = gpu.ctx.createBufferFrom("bias", randn(N, 18));
    for (const variant of ["vec4", "vec4x16"] as MatmulVariant[]) {
      const dx = gpu.ctx.createBufferFrom("dx", randn(M * K, 14));
      const dw = gpu.ctx.createBufferFrom("dw", randn(K * N, 15));
      const db = gpu.ctx.createBufferFrom("db", randn(N, 16));
      const y = gpu.ctx.createBuffer("y", M * N * 4);
      gpu.ctx.run(matmulBackwardDx(gpu.ctx, { dy, w, dx }, M, K, N, true, variant));
      gpu.ctx.run(matmulBackwardDw(gpu.ctx, { x, dy, dw, dbias: db, dummy }, M, K, N, variant));
      gpu.ctx.run(matmulForward(gpu.ctx, { x, w, bias, res: wx, y, dummy }, M, K, N, variant));
      out.push([
        await gpu.ctx.readF32(dx, 0, M * K),
        await gpu.ctx.readF32(dw, 0, K * N),
        await gpu.ctx.readF32(db, 0, N),
        await gpu.ctx.readF32(y, 0, M * N),
      ]);
    }
    for (let t = 0; t < 4; t++) {
      const [a, b] = [out[0][t], out[1][t]];
      const differ = a.findIndex((v, i) => !Object.is(v, b[i]));
      expect(differ, `${["dx", "dw", "db", "y"][t]}: first differing element`).toBe(-1);
    }
  });

  // "auto" starts on the 8×4 kernels and moves each call to its 16×8 tile once that is built
  // in the background (CallOptions.upgrade); the values do not move with it.
  it("auto calls move to the 16×8 tiles once built, with the same bits before and after", async () => {
    // a device of its own: no 16×8 pipeline built yet by the cases above
    const ctx = new GpuContext(await requestNodeDevice());
    try {
      const [M, K, N] = [48, 64, 192];
      const x = ctx.createBufferFrom("x", randn(M * K, 21));
      const w = ctx.createBufferFrom("w", randn(K * N, 22));
      const dy = ctx.createBufferFrom("dy", randn(M * N, 23, 0.1));
      const y = ctx.createBuffer("y", M * N * 4);
      const dx = ctx.createBuffer("dx", M * K * 4);
      const dw = ctx.createBuffer("dw", K * N * 4);
      const d = ctx.createBuffer("dummy", 16);
      ctx.holdBackgroundBuilds(); // as LabRun.warmUp: nothing builds until released
      const calls = [
        matmulForward(ctx, { x, w, bias: null, res: null, y, dummy: d }, M, K, N),
        matmulBackwardDx(ctx, { dy, w, dx }, M, K, N),
        matmulBackwardDw(ctx, { x, dy, dw, dbias: null, dummy: d }, M, K, N),
      ];
      const names = () => calls.map((c) => c.kernel.name);
      expect(names()).toEqual([
        "matmul_forward_vec4",
        "matmul_backward_dx_vec4",
        "matmul_backward_dw_vec4",
      ]);
      const run = async () => {
        ctx.clear(dw);
        for (const c of calls) ctx.run(c);
        return [
          await ctx.readF32(y, 0, M * N),
          await ctx.readF32(dx, 0, M * K),
          await ctx.readF32(dw, 0, K * N),
        ];
      };
      const before = await run();
      await new Promise((res) => setTimeout(res, 50));
      expect(names()[1]).toBe("matmul_backward_dx_vec4"); // held
      await ctx.backgroundBuilds(); // releases, then waits
      expect(names()).toEqual([
        "matmul_forward_vec4_16x8",
        "matmul_backward_dx_vec4_16x8",
        "matmul_backward_dw_vec4_16x8",
      ]);
      expect(calls[1].workgroups[0] * calls[1].workgroups[1]).toBe(Math.ceil((3 * 8) / 64));
      const after = await run();
      for (let t = 0; t < 3; t++)
        expect(after[t].findIndex((v, i) => !Object.is(v, before[t][i]))).toBe(-1);
      // A call made once the tile is built starts on it.
      expect(matmulBackwardDx(ctx, { dy, w, dx }, M, K, N).kernel.name).toBe(
        "matmul_backward_dx_vec4_16x8",
      );
    } finally {
      ctx.destroy();
    }
  });

  for (const O of [10, 12]) {
    for (const epi of ["store", "gelu", "add"] as MatmulEpilogue[]) {
      for (const bias of [true, false]) {
        it(`decode_matmul O=${O} (${O % 4 ? "scalar W" : "vec4 W"}) epilogue=${epi} bias=${bias}`, async () => {
          const R = 7,
            I = 12;
          const x = randn(R * I, 1);
          const W = randn(I * O, 2, 0.5);
          const b = randn(O, 3, 0.5);
          const y0 = randn(R * O, 4);
          // Parameter-buffer layout: W at float 64, b at 256 (64-float aligned like paramLayout).
          const flat = new Float32Array(512);
          flat.set(W, 64);
          flat.set(b, 256);
          const xb = gpu.ctx.createBufferFrom("x", x);
          const wb = gpu.ctx.createBufferFrom("w", flat);
          const yb = gpu.ctx.createBufferFrom("y", y0);
          const dims = { R, I, O, wOff: 64, bOff: bias ? 256 : null };
          gpu.ctx.run(decodeMatmul(gpu.ctx, { x: xb, w: wb, y: yb }, dims, epi));
          const got = await gpu.ctx.readF32(yb, 0, R * O);
          const ref = new Float64Array(R * O);
          matmulForwardRef(ref, x, W, bias ? b : null, R, I, O);
          if (epi === "gelu") geluForward(ref, Float64Array.from(ref), R * O);
          if (epi === "add") for (let i = 0; i < R * O; i++) ref[i] += y0[i];
          expectClose("decode_matmul y", got, ref);
        });
      }
    }
  }

  it("reports its speed on a 256×128×512 product (information only)", async () => {
    const [M, K, N] = [256, 128, 512];
    const bx = gpu.ctx.createBufferFrom("x", randArray(M * K, 1)),
      bw = gpu.ctx.createBufferFrom("w", randArray(K * N, 2));
    const y = gpu.ctx.createBuffer("y", M * N * 4);
    const dy = gpu.ctx.createBufferFrom("dy", randArray(M * N, 3));
    const dx = gpu.ctx.createBuffer("dx", M * K * 4),
      dw = gpu.ctx.createBuffer("dw", K * N * 4);
    const calls: Record<string, ReturnType<typeof matmulForward>> = {};
    for (const v of ["scalar", "vec4", "tiled"] as const) {
      calls[`${v} forward`] = matmulForward(
        gpu.ctx,
        { x: bx, w: bw, bias: null, res: null, y, dummy },
        M,
        K,
        N,
        v,
      );
      calls[`${v} dx`] = matmulBackwardDx(gpu.ctx, { dy, w: bw, dx }, M, K, N, false, v);
      calls[`${v} dw`] = matmulBackwardDw(
        gpu.ctx,
        { x: bx, dy, dw, dbias: null, dummy },
        M,
        K,
        N,
        v,
      );
    }
    const flops = 2 * M * K * N;
    for (const [name, call] of Object.entries(calls)) {
      gpu.ctx.run(call);
      await gpu.ctx.sync();
      const reps = 3;
      const t0 = performance.now();
      for (let r = 0; r < reps; r++) gpu.ctx.run(call);
      await gpu.ctx.sync();
      const ms = (performance.now() - t0) / reps;
      console.log(
        `matmul ${name} ${M}×${K}×${N}: ${ms.toFixed(2)} ms, ${(flops / ms / 1e6).toFixed(2)} GFLOP/s (${gpu.ctx.adapter.description})`,
      );
      expect(ms).toBeGreaterThan(0);
    }
  });
});
