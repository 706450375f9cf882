// Advances the decode step counter: state[0] += p.inc (inc = 1; one invocation). Recorded
// after every decode step so that the next step's kernels, which read the
// counter from this storage buffer, see the next position without a CPU
// round trip or a uniform rewrite.

// Uniform `p` and bindings: generated from its spec (src/kernels/decode/spec.ts).

@compute @workgroup_size(WG)
fn main() {
  state[0] = state[0] + p.inc;
}
