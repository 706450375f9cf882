// attention_forward_vec4: attention_forward.wgsl (same contract, masks and
// outputs) for head sizes hs = C/NH that are multiples of 4: q, k, v and out
// are read and written as vec4 along the head channels, which SwiftShader
// runs several times faster than scalar loads.
// Dispatch: ceil(B·NH·T / 64) workgroups.
struct Params { B: u32, T: u32, C: u32, NH: u32, P: u32, L: u32, padId: i32, scale: f32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> qkv: array<vec4f>;        // [B, T, 3C/4]
@group(0) @binding(2) var<storage, read> tokens: array<i32>;       // [B, L]
@group(0) @binding(3) var<storage, read_write> att: array<f32>;    // [B, NH, T, T]
@group(0) @binding(4) var<storage, read_write> out: array<vec4f>;  // [B, T, C/4]

fn keyOk(b: u32, j: u32) -> bool {
  return j < p.P || tokens[b * p.L + j - p.P] != p.padId;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let row = gid.x;
  if (row >= p.B * p.NH * p.T) { return; }
  let i = row % p.T;
  let h = (row / p.T) % p.NH;
  let b = row / (p.T * p.NH);
  let C4 = p.C / 4u;
  let hs4 = C4 / p.NH;
  let C34 = 3u * C4;
  let q = (b * p.T + i) * C34 + h * hs4;
  let a = row * p.T;
  var maxv = -3.0e38;
  for (var j = 0u; j <= i; j++) {
    if (!keyOk(b, j)) { continue; }
    let k = (b * p.T + j) * C34 + C4 + h * hs4;
    var s = 0.0;
    for (var e = 0u; e < hs4; e++) { s += dot(qkv[q + e], qkv[k + e]); }
    s *= p.scale;
    att[a + j] = s;
    maxv = max(maxv, s);
  }
  var sum = 0.0;
  for (var j = 0u; j <= i; j++) {
    var ev = 0.0;
    if (keyOk(b, j)) { ev = exp(att[a + j] - maxv); }
    att[a + j] = ev;
    sum += ev;
  }
  let inv = 1.0 / sum;
  for (var j = 0u; j <= i; j++) { att[a + j] *= inv; }
  for (var j = i + 1u; j < p.T; j++) { att[a + j] = 0.0; }
  let o = (b * p.T + i) * C4 + h * hs4;
  let v0 = b * p.T * C34 + 2u * C4 + h * hs4;
  for (var e = 0u; e < hs4; e++) {
    var s = vec4f(0.0);
    for (var j = 0u; j <= i; j++) { s += att[a + j] * qkv[v0 + j * C34 + e]; }
    out[o + e] = s;
  }
}
