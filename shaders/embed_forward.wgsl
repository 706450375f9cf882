// embed_forward: out [B, T, C], T = P + L:
//   out[b, k]     = patchEmb[b·P + k] + wpe[k]          (k < P; patchEmb = patches·patch.w + patch.b)
//   out[b, P + s] = wte[tokens[b, s]] + wpe[P + s]
// One invocation per output value. Dispatch: ceil(B·T·C / 64) workgroups (x, spilling into y).
struct Params { B: u32, P: u32, L: u32, C: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> patchEmb: array<f32>;   // [B·P, C]
@group(0) @binding(2) var<storage, read> tokens: array<i32>;     // [B, L]
@group(0) @binding(3) var<storage, read> wte: array<f32>;        // [V, C]
@group(0) @binding(4) var<storage, read> wpe: array<f32>;        // [maxSeqLen, C]
@group(0) @binding(5) var<storage, read_write> out: array<f32>;  // [B, T, C]

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let idx = gid.x + gid.y * nwg.x * 64u;
  let T = p.P + p.L;
  if (idx >= p.B * T * p.C) { return; }
  let c = idx % p.C;
  let t = (idx / p.C) % T;
  let b = idx / (p.C * T);
  var v = wpe[t * p.C + c];
  if (t < p.P) {
    v += patchEmb[(b * p.P + t) * p.C + c];
  } else {
    v += wte[u32(tokens[b * p.L + t - p.P]) * p.C + c];
  }
  out[idx] = v;
}
