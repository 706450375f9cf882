// matmul_backward_dw: dw [K, N] += xᵀ [K, M] · dy [M, N] and, with flags
// bit 0, dbias [N] += Σ_m dy[m, :]: the weight and bias gradients of y = x·w + b.
//
// Deterministic (no atomics): each output element is summed by exactly one
// invocation in a fixed order over m. Register-blocked: an invocation owns
// a 4×4 block of dw (rows k0.., columns n0..); per m it loads four scalars of
// x and one vec4 of dy and does four vec4 FMAs. The extra block row
// kb = ceil(K/4) (dispatched only when flags bit 0 is set) computes the bias
// column sums. Accumulates (+=): the caller zeroes the gradient buffer.
// Dispatch: ceil((ceil(K/4) + hasBias)·ceil(N/4) / 64) workgroups.
// Uniform `p` and bindings: generated from its spec (src/kernels/matmul/spec.ts).

fn loadDy(row: u32, n: u32) -> vec4f {
  let i = row * p.N + n;
  if (n + 3u < p.N) { return vec4f(dy[i], dy[i + 1u], dy[i + 2u], dy[i + 3u]); }
  var v = vec4f(0.0);
  for (var j = 0u; j < 4u; j++) { if (n + j < p.N) { v[j] = dy[i + j]; } }
  return v;
}

fn store(k: u32, n0: u32, acc: vec4f) {
  if (k >= p.K) { return; }
  for (var j = 0u; j < 4u; j++) {
    if (n0 + j < p.N) { dw[k * p.N + n0 + j] += acc[j]; }
  }
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let colBlocks = (p.N + 3u) / 4u;
  let kBlocks = (p.K + 3u) / 4u;
  let rowBlocks = kBlocks + select(0u, 1u, (p.flags & 1u) != 0u);
  let idx = linear_id(gid, nwg);
  if (idx >= colBlocks * rowBlocks) { return; }
  let n0 = (idx % colBlocks) * 4u;
  let kb = idx / colBlocks;
  if (kb == kBlocks) {
    // bias block: column sums of dy
    var s = vec4f(0.0);
    for (var m = 0u; m < p.M; m++) { s += loadDy(m, n0); }
    for (var j = 0u; j < 4u; j++) { if (n0 + j < p.N) { dbias[n0 + j] += s[j]; } }
    return;
  }
  let k0 = kb * 4u;
  let c0 = min(k0, p.K - 1u);
  let c1 = min(k0 + 1u, p.K - 1u);
  let c2 = min(k0 + 2u, p.K - 1u);
  let c3 = min(k0 + 3u, p.K - 1u);
  var a0 = vec4f(0.0);
  var a1 = vec4f(0.0);
  var a2 = vec4f(0.0);
  var a3 = vec4f(0.0);
  for (var m = 0u; m < p.M; m++) {
    let d = loadDy(m, n0);
    let r = m * p.K;
    a0 += x[r + c0] * d;
    a1 += x[r + c1] * d;
    a2 += x[r + c2] * d;
    a3 += x[r + c3] * d;
  }
  store(k0, n0, a0);
  store(k0 + 1u, n0, a1);
  store(k0 + 2u, n0, a2);
  store(k0 + 3u, n0, a3);
}
