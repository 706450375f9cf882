// RLVR in the editor's terms: R = r_ver, the lab's verifier (GRR eq. 1).
// Gives the built-in RLVR variant's rewards exactly.
function reward(group) {
  return group.rollouts.map((r) => r.correct);
}
