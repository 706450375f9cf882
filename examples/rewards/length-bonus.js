// A length bonus: the verifier's reward plus a bonus for every character
// written. The policy learns to write longer rollouts whether or not they
// are right: watch Response length and the length-drift check.
const weights = { answer: 1, length: 1 };

function reward(group) {
  return {
    answer: group.rollouts.map((r) => r.correct),
    length: group.rollouts.map((r) => r.text.length / 100),
  };
}
