// matmul_backward_dw_vec4: dw [K, N] += xᵀ · dy and (flags bit 0)
// dbias [N] += Σ_m dy[m, :], for K % 4 = 0 and N % 4 = 0 (otherwise
// matmul_backward_dw.wgsl, same contract). Everything is read/written as
// vec4. An invocation owns an 8×4 block of dw (rows k0..k0+7, one vec4 column
// c): per m, two vec4 of x and one of dy feed 8 vec4 FMAs (measured ~1.3×
// a 4×4 block on SwiftShader). When K/4 is odd the last block's second half
// is clamped for loads and not stored. Deterministic: each block sums over m
// in order; block row ceil(K/8) (only with a bias) sums the columns.
// Dispatch: ceil((ceil(K/8) + hasBias)·(N/4) / 64) workgroups.
// Uniform `p` and bindings: generated from its spec (src/kernels/matmul/spec.ts).

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let N4 = p.N / 4u;
  let K4 = p.K / 4u;
  let kBlocks = (K4 + 1u) / 2u;
  let rowBlocks = kBlocks + select(0u, 1u, (p.flags & 1u) != 0u);
  let idx = linear_id(gid, nwg);
  if (idx >= N4 * rowBlocks) { return; }
  let c = idx % N4;
  let kb = idx / N4;
  if (kb == kBlocks) {
    var s = vec4f(0.0);
    for (var m = 0u; m < p.M; m++) { s += dy[m * N4 + c]; }
    dbias[c] += s;
    return;
  }
  let q0 = 2u * kb;
  let q1 = min(q0 + 1u, K4 - 1u);
  var a0 = vec4f(0.0);
  var a1 = vec4f(0.0);
  var a2 = vec4f(0.0);
  var a3 = vec4f(0.0);
  var b0 = vec4f(0.0);
  var b1 = vec4f(0.0);
  var b2 = vec4f(0.0);
  var b3 = vec4f(0.0);
  for (var m = 0u; m < p.M; m++) {
    let d = dy[m * N4 + c];
    let xv = x[m * K4 + q0];
    let xu = x[m * K4 + q1];
    a0 += xv.x * d;
    a1 += xv.y * d;
    a2 += xv.z * d;
    a3 += xv.w * d;
    b0 += xu.x * d;
    b1 += xu.y * d;
    b2 += xu.z * d;
    b3 += xu.w * d;
  }
  let k0 = 4u * q0;
  dw[k0 * N4 + c] += a0;
  dw[(k0 + 1u) * N4 + c] += a1;
  dw[(k0 + 2u) * N4 + c] += a2;
  dw[(k0 + 3u) * N4 + c] += a3;
  if (q0 + 1u < K4) {
    dw[(k0 + 4u) * N4 + c] += b0;
    dw[(k0 + 5u) * N4 + c] += b1;
    dw[(k0 + 6u) * N4 + c] += b2;
    dw[(k0 + 7u) * N4 + c] += b3;
  }
}
