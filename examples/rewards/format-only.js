// Format only: 1 for a trace in the strict format (one closed think block,
// steps numbered 1, 2, … each with a box, a separate final answer), whatever
// the answer. A policy can earn all of it while answering wrong.
function reward(group) {
  return group.rollouts.map((r) => r.strictFormat);
}
