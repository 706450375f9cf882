// Advances the decode step counter: state[0] += p.inc (inc = 1; one invocation). Recorded
// after every decode step so that the next step's kernels, which read the
// counter from this storage buffer, see the next position without a CPU
// round trip or a uniform rewrite.

struct Params { inc: u32 }

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> state: array<u32>;  // [step, pad, ...]

@compute @workgroup_size(1)
fn main() {
  state[0] = state[0] + p.inc;
}
