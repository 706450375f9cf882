/**
 * CPU reference (f64) of the GPU AdamW step with global-norm clipping
 * (./launch.ts, shaders/adamw/).
 * Used by tests only. Same formulas: torch.nn.utils.clip_grad_norm_ then
 * torch.optim.AdamW (Loshchilov & Hutter 2019, Algorithm 2).
 */
import type { ParamLayout } from "../../layout/param-layout";
import { decays, resolveAdamW, type AdamWOptions, type GradStats } from "./launch";

/** Optimizer state in f64: params, m, v [totalFloats] and the step counter. */
export interface AdamWRefState {
  params: Float64Array;
  m: Float64Array;
  v: Float64Array;
  t: number;
}

/** Per-float decay mask (1 = decay) from a layout: 2-D tensors only. */
export function decayFloatMask(layout: Pick<ParamLayout, "tensors" | "totalFloats">): Uint8Array {
  const mask = new Uint8Array(layout.totalFloats);
  for (const t of layout.tensors) if (decays(t.shape)) mask.fill(1, t.offset, t.offset + t.size);
  return mask;
}

/**
 * One AdamW step in place on `state` (t ← t + 1).
 *   norm  = ‖grads‖₂;  scale = min(1, maxNorm/(norm + 1e-6)) (1 when maxNorm ≤ 0 or ∞)
 *   a non-finite norm skips the update (params, m, v unchanged; scale 0); t still
 *   advances, as on the GPU, where the CPU-side counter cannot see the skip
 *   g = grads·scale; m = β1 m + (1−β1) g; v = β2 v + (1−β2) g²
 *   p = p(1 − lr·wd·mask) − lr (m/(1−β1^t)) / (sqrt(v/(1−β2^t)) + eps)
 */
export function adamwStepRef(
  state: AdamWRefState,
  grads: ArrayLike<number>,
  decayMask: ArrayLike<number>,
  opts: AdamWOptions,
): GradStats {
  const o = resolveAdamW(opts);
  const n = state.params.length;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += grads[i] * grads[i];
  const norm = Math.sqrt(ss);
  state.t += 1;
  if (!Number.isFinite(norm)) return { gradNorm: norm, clipScale: 0, finite: false };
  const clip = o.maxGradNorm;
  const scale = Number.isFinite(clip) && clip > 0 ? Math.min(1, clip / (norm + 1e-6)) : 1;
  const bc1 = 1 - o.beta1 ** state.t;
  const bc2 = 1 - o.beta2 ** state.t;
  for (let i = 0; i < n; i++) {
    const g = grads[i] * scale;
    const m = o.beta1 * state.m[i] + (1 - o.beta1) * g;
    const v = o.beta2 * state.v[i] + (1 - o.beta2) * g * g;
    state.m[i] = m;
    state.v[i] = v;
    const decay = decayMask[i] ? o.lr * o.weightDecay : 0;
    state.params[i] =
      state.params[i] * (1 - decay) - (o.lr * (m / bc1)) / (Math.sqrt(v / bc2) + o.eps);
  }
  return { gradNorm: norm, clipScale: scale, finite: true };
}
