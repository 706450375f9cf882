// attention_backward_q: pass 1 of the attention backward (llm.c
// attention_backward, split so that no two invocations write one value).
// One invocation per (b, h, i) query row, using the stored probabilities att:
//   datt_ij = dout_i·v_j,  dpre_ij = att_ij·(datt_ij − Σ_k att_ik·datt_ik),
//   dq_i = scale·Σ_j dpre_ij·k_j   (written into the q part of dqkv).
// dpre [B, NH, T, T] is stored for pass 2 (attention_backward_kv).
// Dispatch: ceil(B·NH·T / 64) workgroups.
struct Params { B: u32, T: u32, C: u32, NH: u32, P: u32, L: u32, padId: i32, scale: f32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> dout: array<f32>;          // [B, T, C]
@group(0) @binding(2) var<storage, read> qkv: array<f32>;           // [B, T, 3C]
@group(0) @binding(3) var<storage, read> att: array<f32>;           // [B, NH, T, T]
@group(0) @binding(4) var<storage, read_write> dpre: array<f32>;    // [B, NH, T, T]
@group(0) @binding(5) var<storage, read_write> dqkv: array<f32>;    // [B, T, 3C]

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let row = gid.x;
  if (row >= p.B * p.NH * p.T) { return; }
  let i = row % p.T;
  let h = (row / p.T) % p.NH;
  let b = row / (p.T * p.NH);
  let hs = p.C / p.NH;
  let C3 = 3u * p.C;
  let a = row * p.T;
  let o = (b * p.T + i) * p.C + h * hs;
  var dot = 0.0;
  for (var j = 0u; j <= i; j++) {
    let v = (b * p.T + j) * C3 + 2u * p.C + h * hs;
    var s = 0.0;
    for (var e = 0u; e < hs; e++) { s += dout[o + e] * qkv[v + e]; }
    dpre[a + j] = s;
    dot += att[a + j] * s;
  }
  for (var j = 0u; j <= i; j++) { dpre[a + j] = att[a + j] * (dpre[a + j] - dot); }
  for (var j = i + 1u; j < p.T; j++) { dpre[a + j] = 0.0; }
  let q = (b * p.T + i) * C3 + h * hs;
  for (var e = 0u; e < hs; e++) {
    var s = 0.0;
    for (var j = 0u; j <= i; j++) { s += dpre[a + j] * qkv[(b * p.T + j) * C3 + p.C + h * hs + e]; }
    dqkv[q + e] = s * p.scale;
  }
}
