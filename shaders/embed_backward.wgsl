// embed_backward: gradients of embed_forward from dout [B, T, C]. One
// dispatch, three invocation ranges, each output value owned by exactly one
// invocation that sums in a fixed order (deterministic; no float atomics):
//   [0, V·C)          dwte[v, c] += Σ_{b,s : tokens[b,s] = v} dout[b, P+s, c]
//   [V·C, +T·C)       dwpe[t, c] += Σ_b dout[b, t, c]
//   [.., +B·P·C)      dpatchEmb[b·P + k, c] = dout[b, k, c]  (written; then
//                     matmul_backward_dw turns it into patch.w / patch.b grads)
// Dispatch: ceil((V + T + B·P)·C / 64) workgroups (x, spilling into y).
struct Params { B: u32, P: u32, L: u32, C: u32, V: u32, _p0: u32, _p1: u32, _p2: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> dout: array<f32>;            // [B, T, C]
@group(0) @binding(2) var<storage, read> tokens: array<i32>;          // [B, L]
@group(0) @binding(3) var<storage, read_write> dwte: array<f32>;      // [V, C]
@group(0) @binding(4) var<storage, read_write> dwpe: array<f32>;      // [maxSeqLen, C]
@group(0) @binding(5) var<storage, read_write> dpatchEmb: array<f32>; // [B·P, C]

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  var idx = gid.x + gid.y * nwg.x * 64u;
  let T = p.P + p.L;
  let C = p.C;
  if (idx < p.V * C) {
    let v = i32(idx / C);
    let c = idx % C;
    var s = 0.0;
    for (var b = 0u; b < p.B; b++) {
      for (var t = 0u; t < p.L; t++) {
        if (tokens[b * p.L + t] == v) { s += dout[(b * T + p.P + t) * C + c]; }
      }
    }
    dwte[idx] += s;
    return;
  }
  idx -= p.V * C;
  if (idx < T * C) {
    var s = 0.0;
    for (var b = 0u; b < p.B; b++) { s += dout[b * T * C + idx]; }
    dwpe[idx] += s;
    return;
  }
  idx -= T * C;
  if (idx < p.B * p.P * C) {
    let c = idx % C;
    let k = (idx / C) % p.P;
    let b = idx / (C * p.P);
    dpatchEmb[idx] = dout[(b * T + k) * C + c];
  }
}
