// attention_forward_rows_vec4: attention_forward_vec4.wgsl for the packed
// query rows of a compacted last layer only. Packed row r is the query at
// absolute row idx[r] = b·T + i of [B, T] (idx < 0: a padding row, written
// 0); its output goes to out[r] (packed [R, C]) and its probabilities to its
// own row of att [B, NH, T, T]. Rows of att that no packed row names are not
// written. Same arithmetic, in the same order, as the full kernel, so every
// written value is the full kernel's. Head size C/NH a multiple of 4.
// Dispatch: ceil(R·NH / 64) workgroups.
// Uniform `p` and bindings: generated from its spec (src/kernels/attention/spec.ts).

fn keyOk(b: u32, j: u32) -> bool {
  return j < p.P || tokens[b * p.L + j - p.P] != p.padId;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let t = gid.x;
  if (t >= p.R * p.NH) { return; }
  let r = t / p.NH;
  let h = t % p.NH;
  let C4 = p.C / 4u;
  let hs4 = C4 / p.NH;
  let C34 = 3u * C4;
  let o = r * C4 + h * hs4;
  let src = idx[r];
  if (src < 0) {
    for (var e = 0u; e < hs4; e++) { out[o + e] = vec4f(0.0); }
    return;
  }
  let b = u32(src) / p.T;
  let i = u32(src) % p.T;
  let q = (b * p.T + i) * C34 + h * hs4;
  let a = ((b * p.NH + h) * p.T + i) * p.T;
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
  let v0 = b * p.T * C34 + 2u * C4 + h * hs4;
  for (var e = 0u; e < hs4; e++) {
    var s = vec4f(0.0);
    for (var j = 0u; j <= i; j++) { s += att[a + j] * qkv[v0 + j * C34 + e]; }
    out[o + e] = s;
  }
}
