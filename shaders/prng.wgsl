// Counter-based PRNG: a uniform in [0, 1) from (seed, sequence, step), with
// no state to carry between steps, so the same seed gives the same tokens
// whatever the dispatch order. Built from the PCG hash (O'Neill 2014, as a
// hash: Jarkko & Olano, "Hash Functions for GPU Rendering", JCGT 2020), chained
// over the three counters. 24 mantissa bits of the final hash give the float.
// Prepended to shaders that need it (sample.wgsl); the TypeScript mirror is
// prngUniform() in src/model/generate/prng.ts.

fn pcg_hash(v: u32) -> u32 {
  let state = v * 747796405u + 2891336453u;
  let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
  return (word >> 22u) ^ word;
}

fn prng_uniform(seed: u32, seq: u32, step: u32) -> f32 {
  let h = pcg_hash(pcg_hash(pcg_hash(seed) ^ seq) ^ step);
  return f32(h >> 8u) * (1.0 / 16777216.0);
}
