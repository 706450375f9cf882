// Picks the next token of every sequence from its logits and writes it where
// the next decode step reads it (no CPU round trip). One invocation per
// sequence; prng_uniform comes from the prelude (shaders/prelude.wgsl).
//
// Per sequence n at step s = state[0] + state[4 + n] (the decode step counter
// plus the tokens prefilled for n: token s is response column s), z = logits[n] / T:
//   s ≥ M: nothing (the sequence's columns are all written; it is stepped
//          along with the others and marked done).
//   finished (an earlier token was EOS): token = PAD, logprob = 0.
//   s < forcedLen[n]:  token = forced[n, s], logprob = log softmax(z)[token] (unfiltered).
//   greedy:            token = argmax z (lowest index on ties), logprob = log softmax(z)[token].
//   else sample from softmax(z) restricted to the kept set and renormalised:
//     rank(i)   = #{j : z_j > z_i or (z_j == z_i and j < i)}      (0 = most likely)
//     top-k:    keep rank(i) < k                                   (k = 0: off)
//     top-p:    keep if the mass of the kept tokens ranked before i
//               is < topP · (mass of the top-k set)                (nucleus sampling,
//               Holtzman et al. 2020 §3.1; applied after top-k as in HF transformers)
//     token = first i (index order) whose cumulative kept mass exceeds u · Z_kept,
//     u = prng_uniform(seed, n, s);  logprob = z_tok - max z - log Z_kept.
// rank/mass are O(V²) per sequence: cheap for the lab's small vocabularies.
// Writes out.tokens[n, s], out.logprobs[n, s] (f32 bits), text[n, promptLen + s];
// counts out.lengths[n] (tokens up to and including EOS; the prefilled ones
// are the caller's to add) and sets out.done[n] at EOS or after column M − 1.

// Uniform `p` and bindings: generated from its spec (src/kernels/sample/spec.ts).

fn z(n: u32, i: u32) -> f32 {
  return logits[n * p.V + i] * p.invT;
}

// True when token j is ranked before token i (higher z, ties to the lower index).
fn before(zj: f32, j: u32, zi: f32, i: u32) -> bool {
  return zj > zi || (zj == zi && j < i);
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let n = gid.x;
  if (n >= p.N) { return; }
  let s = state[0] + state[4u + n];
  let NM = p.N * p.M;
  let doneAt = 2u * NM + p.N + n;
  if (s >= p.M) { return; }
  var tok = p.pad;
  var lp = 0.0;
  if (out[doneAt] == 0) {
    let V = p.V;
    let row = n * V;
    var m = z(n, 0u);
    var arg = 0u;
    for (var i = 1u; i < V; i++) {
      let zi = z(n, i);
      if (zi > m) { m = zi; arg = i; }
    }
    var Z = 0.0;
    for (var i = 0u; i < V; i++) {
      let e = exp(z(n, i) - m);
      ework[row + i] = e;
      Z += e;
    }
    let flen = u32(forced[p.N * p.cap + n]);
    if (s < flen) {
      tok = forced[n * p.cap + s];
      lp = z(n, u32(tok)) - m - log(Z);
    } else if (p.greedy != 0u) {
      tok = i32(arg);
      lp = -log(Z);
    } else {
      let kOn = p.topK > 0u && p.topK < V;
      let pOn = p.topP < 1.0;
      // Mass of the top-k set (all tokens when top-k is off).
      var Zk = Z;
      if (kOn) {
        Zk = 0.0;
        for (var i = 0u; i < V; i++) {
          let zi = z(n, i);
          var rank = 0u;
          for (var j = 0u; j < V; j++) {
            if (before(z(n, j), j, zi, i)) { rank++; }
          }
          if (rank < p.topK) { Zk += ework[row + i]; }
        }
      }
      // Kept set: ework[i] = e_i if kept else 0.
      var Zkeep = Z;
      if (kOn || pOn) {
        Zkeep = 0.0;
        for (var i = 0u; i < V; i++) {
          let zi = z(n, i);
          var rank = 0u;
          var mass = 0.0;
          for (var j = 0u; j < V; j++) {
            if (before(z(n, j), j, zi, i)) {
              rank++;
              mass += exp(z(n, j) - m);
            }
          }
          let keep = (!kOn || rank < p.topK) && (!pOn || mass < p.topP * Zk);
          if (!keep) { ework[row + i] = 0.0; }
          Zkeep += ework[row + i];
        }
      }
      let u = prng_uniform(p.seed, n, s) * Zkeep;
      var cum = 0.0;
      var pick = arg;  // fallback (rounding): the most likely token, always kept
      for (var i = 0u; i < V; i++) {
        let e = ework[row + i];
        cum += e;
        if (e > 0.0 && cum > u) { pick = i; break; }
      }
      tok = i32(pick);
      lp = z(n, pick) - m - log(Zkeep);
    }
    out[2u * NM + n] = out[2u * NM + n] + 1;
    if (tok == p.eos) { out[doneAt] = 1; }
  }
  out[n * p.M + s] = tok;
  out[NM + n * p.M + s] = bitcast<i32>(lp);
  text[n * p.textCap + p.promptLen + s] = tok;
  if (s + 1u == p.M) { out[doneAt] = 1; }
}
