// attention_forward_vec4: attention_forward.wgsl (same contract, masks and
// outputs) for head sizes hs = C/NH that are multiples of 4: q, k, v and out
// are read and written as vec4 along the head channels, which SwiftShader
// runs several times faster than scalar loads.
// Dispatch: ceil(B·NH·T / 64) workgroups.
// Uniform `p` and bindings: generated from its spec (src/kernels/attention/spec.ts).

fn keyOk(b: u32, j: u32) -> bool {
  return j < p.P || tokens[b * p.L + j - p.P] != p.padId;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let row = gid.x;
  if (row >= p.B * p.NH * p.T) { return; }
  let at = split_bht(row, p.NH, p.T);
  let b = at.b; let h = at.h; let i = at.t;
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
