// AdamW over the whole flat parameter buffer in one dispatch (decoupled
// weight decay: Loshchilov & Hutter 2019, Algorithm 2; update written as
// PyTorch's torch.optim.AdamW):
//   g  = grad · scale                       (scale from grad_norm.wgsl: global-norm clipping)
//   m  = β1·m + (1−β1)·g
//   v  = β2·v + (1−β2)·g²
//   p  = p·(1 − lr·wd·decay) − lr · (m / bc1) / (sqrt(v / bc2) + eps)
// with bc1 = 1 − β1^t, bc2 = 1 − β2^t computed on the CPU in f64 each step.
// decay is 1 for matrices (2-D tensors) and 0 for biases, LayerNorm gains and
// layout padding; it is stored per 64-float block (every tensor starts on a
// 64-float boundary of the flat buffer, src/model/config.ts), i.e. one u32 per
// 16 vec4s.
// When gstats.finite == 0 (a NaN/Inf gradient) the whole step is skipped:
// params, m and v are left as they were (lab choice; the trainer reports it);
// the CPU-side step counter t still advances.
// Grid-stride loop over vec4s; every invocation does plain loads/stores only.

// Uniform `p` and bindings: generated from its spec (src/kernels/adamw/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  if (gstats[2] == 0.0) { return; }
  let scale = gstats[1];
  let stride = nwg.x * WG;
  for (var i = gid.x; i < p.n4; i += stride) {
    let g = grads[i] * scale;
    let mm = p.beta1 * m[i] + (1.0 - p.beta1) * g;
    let vv = p.beta2 * v[i] + (1.0 - p.beta2) * g * g;
    m[i] = mm;
    v[i] = vv;
    let decay = select(0.0, p.lr * p.weightDecay, decayMask[i / 16u] != 0u);
    let w = params[i];
    params[i] = w * (1.0 - decay) - p.lr * (mm / p.bc1) / (sqrt(vv / p.bc2) + p.eps);
  }
}
