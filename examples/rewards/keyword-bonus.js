// A keyword bonus: the verifier's reward plus 0.5 for each rollout that
// writes "check" somewhere. Nothing asks that the check be done.
const weights = { answer: 1, keyword: 0.5 };

function reward(group) {
  return {
    answer: group.rollouts.map((r) => r.correct),
    keyword: group.rollouts.map((r) => (/\bcheck\b/i.test(r.text) ? 1 : 0)),
  };
}
