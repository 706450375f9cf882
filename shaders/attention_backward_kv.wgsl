// attention_backward_kv: pass 2 of the attention backward. One invocation
// per (b, h, j) key row sums over the queries i ≥ j that saw it:
//   dk_j = scale·Σ_i dpre_ij·q_i,   dv_j = Σ_i att_ij·dout_i
// and writes the k and v parts of dqkv (pass 1 wrote the q part). Masked
// keys have att = dpre = 0 and get zero gradients. Deterministic, no atomics.
// Dispatch: ceil(B·NH·T / 64) workgroups.
struct Params { B: u32, T: u32, C: u32, NH: u32, P: u32, L: u32, padId: i32, scale: f32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> dout: array<f32>;          // [B, T, C]
@group(0) @binding(2) var<storage, read> qkv: array<f32>;           // [B, T, 3C]
@group(0) @binding(3) var<storage, read> att: array<f32>;           // [B, NH, T, T]
@group(0) @binding(4) var<storage, read> dpre: array<f32>;          // [B, NH, T, T]
@group(0) @binding(5) var<storage, read_write> dqkv: array<f32>;    // [B, T, 3C]

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let row = gid.x;
  if (row >= p.B * p.NH * p.T) { return; }
  let j = row % p.T;
  let h = (row / p.T) % p.NH;
  let b = row / (p.T * p.NH);
  let hs = p.C / p.NH;
  let C3 = 3u * p.C;
  let base = (b * p.NH + h) * p.T * p.T; // att[b, h, 0, 0]
  let k = (b * p.T + j) * C3 + p.C + h * hs;
  for (var e = 0u; e < hs; e++) {
    var sk = 0.0;
    var sv = 0.0;
    for (var i = j; i < p.T; i++) {
      let ij = base + i * p.T + j;
      sk += dpre[ij] * qkv[(b * p.T + i) * C3 + h * hs + e];
      sv += att[ij] * dout[(b * p.T + i) * p.C + h * hs + e];
    }
    dqkv[k + e] = sk * p.scale;
    dqkv[k + p.C + e] = sv;
  }
}
