// attention_backward_kv_vec4: attention_backward_kv.wgsl (same contract) for
// head sizes that are multiples of 4, with vec4 loads and stores along the
// head channels. Dispatch: ceil(B·NH·T / 64) workgroups.
struct Params { B: u32, T: u32, C: u32, NH: u32, P: u32, L: u32, padId: i32, scale: f32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> dout: array<vec4f>;         // [B, T, C/4]
@group(0) @binding(2) var<storage, read> qkv: array<vec4f>;          // [B, T, 3C/4]
@group(0) @binding(3) var<storage, read> att: array<f32>;            // [B, NH, T, T]
@group(0) @binding(4) var<storage, read> dpre: array<f32>;           // [B, NH, T, T]
@group(0) @binding(5) var<storage, read_write> dqkv: array<vec4f>;   // [B, T, 3C/4]

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let row = gid.x;
  if (row >= p.B * p.NH * p.T) { return; }
  let j = row % p.T;
  let h = (row / p.T) % p.NH;
  let b = row / (p.T * p.NH);
  let C4 = p.C / 4u;
  let hs4 = C4 / p.NH;
  let C34 = 3u * C4;
  let base = (b * p.NH + h) * p.T * p.T;
  let k = (b * p.T + j) * C34 + C4 + h * hs4;
  let q0 = b * p.T * C34 + h * hs4;
  let o0 = b * p.T * C4 + h * hs4;
  for (var e = 0u; e < hs4; e++) {
    var sk = vec4f(0.0);
    var sv = vec4f(0.0);
    for (var i = j; i < p.T; i++) {
      let ij = base + i * p.T + j;
      sk += dpre[ij] * qkv[q0 + i * C34 + e];
      sv += att[ij] * dout[o0 + i * C4 + e];
    }
    dqkv[k + e] = sk * p.scale;
    dqkv[k + C4 + e] = sv;
  }
}
