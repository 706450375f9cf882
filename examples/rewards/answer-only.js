// Answer only: 1 when the final answer is the reference answer as written
// (its option letter, or its content), else 0. Unlike the lab's verifier
// (rollout.correct), it does not normalise numbers ("07" is not "7").
function reward(group) {
  const { letter, content } = group.prompt.answer;
  return group.rollouts.map((r) =>
    r.answerTruncated ? 0 : r.finalAnswer === content || (letter !== null && r.letter === letter) ? 1 : 0,
  );
}
