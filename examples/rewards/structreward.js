// StructReward in the editor's terms (StructReward eq. 7–10, paper weights):
// R = λ_fmt·R_fmt + λ_right·R_right + λ_rule·R_right·R_rule·(1 + λ_cons·R_cons),
// R_rule = matched steps / steps (0 without steps). Gives the built-in
// StructReward variant's rewards exactly at its default weights.
const lambda = { fmt: 0.1, right: 0.25, rule: 0.75, cons: 0.15 };

function reward(group) {
  return group.rollouts.map((r) => {
    const rule = r.stepCount === 0 ? 0 : r.matchedSteps / r.stepCount;
    return (
      lambda.fmt * r.strictFormat +
      lambda.right * r.correct +
      lambda.rule * r.correct * rule * (1 + lambda.cons * r.consistent)
    );
  });
}
