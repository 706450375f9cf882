// Shared WGSL, placed after the generated header (WG, Params, bindings) and
// before the body of every kernel (src/gpu/kernel-spec.ts). Only helpers that
// more than one kernel uses live here; an unused function costs nothing.

// ---- index prologues -------------------------------------------------------

// Linear invocation id of a 1-D dispatch that spills into y (grid kind
// "spill": past maxComputeWorkgroupsPerDimension workgroups the TypeScript
// side splits the count over x and y; ids past the end must be bounds-checked).
fn linear_id(gid: vec3u, nwg: vec3u) -> u32 {
  return gid.x + gid.y * nwg.x * WG;
}

// (b, h, t) of row = (b·NH + h)·T + t: one invocation per (sequence, head,
// position) row, as the training attention kernels are laid out.
struct Bht { b: u32, h: u32, t: u32 }

fn split_bht(row: u32, NH: u32, T: u32) -> Bht {
  return Bht(row / (T * NH), (row / T) % NH, row % T);
}

// Absolute position of decode row r: posBase + r mod rowsPerSeq, plus the
// sequence's step `step` when useState ≠ 0 (decode steps: the step counter
// state[0] plus the tokens prefilled for that sequence, state[4 + n]; a
// prefill passes useState = 0). Shared by decode_embed, kv_append, decode_attention.
fn decode_pos(r: u32, rowsPerSeq: u32, posBase: u32, useState: u32, step: u32) -> u32 {
  return posBase + r % rowsPerSeq + select(0u, step, useState != 0u);
}

// Prefix layout of a shared-prefix training step (src/model/prefix-layout.ts):
// nG groups of G sequences share their first S positions (row g·S + t), each
// sequence has Rs own positions (row nG·S + b·Rs + t − S); S = 0 is [B, Rs].
// Sequence and position of row r (a prefix row names its group's first sequence).
fn prefix_row_seq(r: u32, nG: u32, G: u32, S: u32, Rs: u32) -> vec2u {
  let pre = nG * S;
  if (r < pre) { return vec2u((r / S) * G, r % S); }
  let q = r - pre;
  return vec2u(q / Rs, S + q % Rs);
}

// ---- math -------------------------------------------------------------------

// tanh from exp of a clamped argument: |u| ≤ 15 gives ±1 to f32 precision, so
// large |u| never overflows (some backends return NaN for tanh of large |u|).
fn tanh_safe(u: f32) -> f32 {
  let e = exp(-2.0 * clamp(abs(u), 0.0, 15.0));
  return sign(u) * (1.0 - e) / (1.0 + e);
}

// ---- PRNG --------------------------------------------------------------------

// Counter-based PRNG: a uniform in [0, 1) from (seed, sequence, step), with
// no state to carry between steps, so the same seed gives the same tokens
// whatever the dispatch order. Built from the PCG hash (O'Neill 2014, as a
// hash: Jarkko & Olano, "Hash Functions for GPU Rendering", JCGT 2020), chained
// over the three counters. 24 mantissa bits of the final hash give the float.
// The TypeScript mirror is prngUniform() in src/kernels/sample/reference.ts.
fn pcg_hash(v: u32) -> u32 {
  let state = v * 747796405u + 2891336453u;
  let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
  return (word >> 22u) ^ word;
}

fn prng_uniform(seed: u32, seq: u32, step: u32) -> f32 {
  let h = pcg_hash(pcg_hash(pcg_hash(seed) ^ seq) ^ step);
  return f32(h >> 8u) * (1.0 / 16777216.0);
}
