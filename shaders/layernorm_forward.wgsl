// layernorm_forward: out [N, C] = (inp − mean)·rstd·g + b per row, eps 1e-5,
// biased variance computed in two passes (never E[x²] − E[x]²). Also writes
// mean [N] and rstd [N] for the backward pass. One invocation per row; rows
// are read as vec4 (C % 4 = 0, which validateConfig guarantees for dModel).
// Dispatch: ceil(N / 64) workgroups (x, spilling into y).
struct Params { N: u32, C: u32, _p0: u32, _p1: u32 }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> inp: array<vec4f>;         // [N, C/4]
@group(0) @binding(2) var<storage, read> g: array<vec4f>;           // [C/4]
@group(0) @binding(3) var<storage, read> b: array<vec4f>;           // [C/4]
@group(0) @binding(4) var<storage, read_write> out: array<vec4f>;   // [N, C/4]
@group(0) @binding(5) var<storage, read_write> mean: array<f32>;    // [N]
@group(0) @binding(6) var<storage, read_write> rstd: array<f32>;    // [N]

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let n = gid.x + gid.y * nwg.x * 64u;
  if (n >= p.N) { return; }
  let C4 = p.C / 4u;
  let base = n * C4;
  var s = vec4f(0.0);
  for (var c = 0u; c < C4; c++) { s += inp[base + c]; }
  let m = (s.x + s.y + s.z + s.w) / f32(p.C);
  var v = 0.0;
  for (var c = 0u; c < C4; c++) {
    let d = inp[base + c] - m;
    v += dot(d, d);
  }
  let r = inverseSqrt(v / f32(p.C) + 1e-5);
  for (var c = 0u; c < C4; c++) { out[base + c] = (inp[base + c] - m) * r * g[c] + b[c]; }
  mean[n] = m;
  rstd[n] = r;
}
