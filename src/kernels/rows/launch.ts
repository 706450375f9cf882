/**
 * Launcher of the indexed row gather (spec in ./spec.ts, WGSL in
 * shaders/rows/). Checker: test/gpu/rows/rows.test.ts.
 */
import type { Binding, GpuContext } from "../../gpu/context";
import type { SpecCall } from "../../gpu/kernel-spec";
import { rowsGatherSpec } from "./spec";

/**
 * y [R, W] ← rows idx[r] of x [rows, W], 0 where idx[r] < 0 (W % 4 = 0).
 * `idx` is i32 [≥ R]; every non-negative entry must be a row of x (not
 * checked on the GPU: the caller builds the map). R may change per step
 * through the call's `set({ R })`.
 * @throws Error when W is not a positive multiple of 4 or R < 0.
 */
export function rowsGather(
  ctx: GpuContext,
  b: { idx: Binding; x: Binding; y: Binding },
  R: number,
  W: number,
): SpecCall<typeof rowsGatherSpec.uniforms> {
  if (!(W > 0) || W % 4 !== 0)
    throw new Error(`rows_gather: W = ${W} must be a positive multiple of 4`);
  if (!Number.isInteger(R) || R < 0)
    throw new Error(`rows_gather: R = ${R} must be an integer ≥ 0`);
  return rowsGatherSpec.call(ctx, { idx: b.idx, x: b.x, y: b.y }, { R, W });
}

/** A compaction map of the logits rows a step's loss reads (lossRows). */
export interface LossRows {
  /** i32 [B·T]: the kept rows in order, then −1 (padding rows, gathered as 0). */
  idx: Int32Array;
  /** i32 [B·T]: each row's place in idx, −1 where the row is not kept. */
  inv: Int32Array;
  /** Rows of the packed arrays: kept rows rounded up to a multiple of the quantum, in [1, B·T]. */
  rows: number;
  /** Rows that feed the loss. */
  kept: number;
}

/**
 * The rows of logits [B, T, V] (T = P + L) that a step's loss reads: token s
 * of row b is predicted by row b·T + P + s − 1, and only tokens 1 ≤ s < L
 * with mask ≠ 0 enter the loss (shaders/loss/loss_token.wgsl). Kept rows
 * are listed in ascending order. Linear in B·T.
 * @param mask [B, L] loss mask (CPU).
 * @param quantum the packed row count is rounded up to a multiple of this
 *   (lab choice in TrainGraph: 16, the forward matmul's row tile), never past B·T.
 * @throws Error when mask is not [B, L] or B, L, P, quantum are not positive integers (P ≥ 0).
 */
export function lossRows(
  mask: Float32Array,
  B: number,
  L: number,
  P: number,
  quantum: number,
): LossRows {
  const ok = (n: number, min: number) => Number.isInteger(n) && n >= min;
  if (!ok(B, 1) || !ok(L, 1) || !ok(P, 0) || !ok(quantum, 1))
    throw new Error(
      `lossRows: B ${B}, L ${L}, quantum ${quantum} must be integers ≥ 1 and P ${P} ≥ 0`,
    );
  if (mask.length !== B * L)
    throw new Error(`lossRows: mask has ${mask.length} values, expected B·L = ${B * L}`);
  const T = P + L;
  const idx = new Int32Array(B * T).fill(-1);
  const inv = new Int32Array(B * T).fill(-1);
  let kept = 0;
  for (let b = 0; b < B; b++) {
    for (let s = 1; s < L; s++) {
      if (mask[b * L + s] === 0) continue;
      const row = b * T + P + s - 1;
      idx[kept] = row;
      inv[row] = kept++;
    }
  }
  const rows = Math.min(B * T, Math.max(1, Math.ceil(kept / quantum)) * quantum);
  return { idx, inv, rows, kept };
}
