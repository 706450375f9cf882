/**
 * Launcher of the indexed row gather (spec in ./spec.ts, WGSL in
 * shaders/rows/). Checker: test/gpu/rows/rows.test.ts.
 */
import type { Binding, GpuContext } from "../../gpu/context";
import type { SpecCall } from "../../gpu/kernel-spec";
import { rowsGatherSpec } from "./spec";
import { physRow, type PrefixLayout } from "../../layout/prefix-layout";

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

/**
 * The compaction maps of a shared-prefix step (src/layout/prefix-layout.ts):
 * the loss reads the logits [B, T, V] of the plain layout (token s of
 * sequence b at plain row b·T + P + s − 1), whose activations live at
 * layout row physRow(b, P + s − 1). Every loss row must be a suffix row
 * (the caller places S at or before the first one), so packed rows and
 * layout rows correspond one to one.
 */
export interface PrefixLossRows {
  /** i32 [B·T]: the kept rows' layout rows in order, then −1 (gathers activations). */
  idxRows: Int32Array;
  /** i32 [B·T]: the kept rows' plain rows b·T + t in order, then −1 (gathers d logits). */
  idxLogits: Int32Array;
  /** i32 [layout rows]: each layout row's place among the kept rows, −1 if not kept (spreads gradients back). */
  invRows: Int32Array;
  /** i32 [B·T]: each plain row's place among the kept rows, −1 if not kept (spreads logits back). */
  invLogits: Int32Array;
  /** Packed rows: kept rows rounded up to a multiple of the quantum, in [1, B·T]. */
  rows: number;
  /** Rows that feed the loss. */
  kept: number;
}

/**
 * lossRows for a prefix layout (see PrefixLossRows). Linear in B·T.
 * @param mask [B, L] loss mask (CPU); L = l.T − P.
 * @throws Error when mask is not [B, L], quantum is not a positive integer,
 *   or a masked token's row is a prefix row (t < S).
 */
export function prefixLossRows(
  mask: Float32Array,
  l: PrefixLayout,
  P: number,
  quantum: number,
): PrefixLossRows {
  const { B, T } = l;
  const L = T - P;
  if (!(Number.isInteger(quantum) && quantum >= 1))
    throw new Error(`prefixLossRows: quantum ${quantum} must be an integer ≥ 1`);
  if (mask.length !== B * L)
    throw new Error(`prefixLossRows: mask has ${mask.length} values, expected B·L = ${B * L}`);
  const idxRows = new Int32Array(B * T).fill(-1);
  const idxLogits = new Int32Array(B * T).fill(-1);
  const invRows = new Int32Array(l.rows).fill(-1);
  const invLogits = new Int32Array(B * T).fill(-1);
  let kept = 0;
  for (let b = 0; b < B; b++) {
    for (let s = 1; s < L; s++) {
      if (mask[b * L + s] === 0) continue;
      const t = P + s - 1;
      if (t < l.S)
        throw new Error(
          `prefixLossRows: token ${s} of sequence ${b} is in the loss but its logits row ${t} is shared (S = ${l.S})`,
        );
      const r = physRow(l, b, t);
      idxRows[kept] = r;
      idxLogits[kept] = b * T + t;
      invRows[r] = kept;
      invLogits[b * T + t] = kept++;
    }
  }
  const rows = Math.min(B * T, Math.max(1, Math.ceil(kept / quantum)) * quantum);
  return { idxRows, idxLogits, invRows, invLogits, rows, kept };
}
