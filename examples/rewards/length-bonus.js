// A length bonus: the verifier's reward plus a bonus for every character
// written, right or not. Watch the length component, the format rate and the
// reward-hacking checks: on the lab's fixed trace form the policy gains
// characters inside its 34 tokens, so Response length (in tokens) may stay
// flat (docs/reward-spec.md §8.3).
const weights = { answer: 1, length: 1 };

function reward(group) {
  return {
    answer: group.rollouts.map((r) => r.correct),
    length: group.rollouts.map((r) => r.text.length / 100),
  };
}
