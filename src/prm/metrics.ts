/**
 * Figures of a PRM on labelled steps (`npm run train:prm`, the PRM tests):
 * step-level accuracy at threshold ½ and the rank-based AUC.
 */

/**
 * Rank-based AUC (the Mann–Whitney U statistic over n₁·n₀): the probability
 * that a random positive step scores above a random negative one, ties
 * counting ½ (average ranks). O(n log n).
 * @param scores [n] finite scores; @param labels [n] 1 (correct step) or 0.
 * @throws Error when the lengths differ, a score is not finite, a label is not
 *   0/1, or one class is empty.
 */
export function rankAuc(scores: ArrayLike<number>, labels: ArrayLike<number>): number {
  const n = scores.length;
  if (labels.length !== n) throw new Error(`rankAuc: ${n} scores but ${labels.length} labels`);
  let pos = 0;
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(scores[i])) throw new Error(`rankAuc: score ${i} is ${scores[i]}`);
    if (labels[i] !== 0 && labels[i] !== 1)
      throw new Error(`rankAuc: label ${i} is ${labels[i]}, not 0 or 1`);
    pos += labels[i];
  }
  const neg = n - pos;
  if (pos === 0 || neg === 0)
    throw new Error(`rankAuc: needs both classes (${pos} positive, ${neg} negative)`);
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[a] - scores[b]);
  let rankSumPos = 0;
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && scores[order[j + 1]] === scores[order[i]]) j++;
    const avgRank = (i + j) / 2 + 1; // ranks are 1-based
    for (let t = i; t <= j; t++) if (labels[order[t]] === 1) rankSumPos += avgRank;
    i = j + 1;
  }
  return (rankSumPos - (pos * (pos + 1)) / 2) / (pos * neg);
}

/**
 * Step-matched AUC: the probability that a positive scores above a negative
 * of the same stratum (here the step number), ties ½; Σ_s U_s / Σ_s n₁ₛ·n₀ₛ
 * over strata s with both classes (lab choice). A score that reads only the
 * step number gets ½, whatever the classes' mix per step; the pooled AUC
 * (rankAuc) does not have that property. O(n log n).
 * @param scores [n] finite scores; @param labels [n] 1 or 0; @param strata [n] integers.
 * @throws Error when the lengths differ, on a bad score or label, or when no
 *   stratum holds both classes.
 */
export function stepMatchedAuc(
  scores: ArrayLike<number>,
  labels: ArrayLike<number>,
  strata: ArrayLike<number>,
): number {
  if (strata.length !== scores.length)
    throw new Error(`stepMatchedAuc: ${scores.length} scores but ${strata.length} strata`);
  if (labels.length !== scores.length)
    throw new Error(`stepMatchedAuc: ${scores.length} scores but ${labels.length} labels`);
  const groups = new Map<number, number[]>();
  for (let i = 0; i < strata.length; i++) {
    checkStep(scores[i], labels[i], i);
    const g = groups.get(strata[i]);
    if (g) g.push(i);
    else groups.set(strata[i], [i]);
  }
  let u = 0;
  let pairs = 0;
  for (const idx of groups.values()) {
    const pos = idx.filter((i) => labels[i] === 1).length;
    const neg = idx.length - pos;
    if (pos === 0 || neg === 0) continue; // no matched pair in this stratum
    const auc = rankAuc(
      idx.map((i) => scores[i]),
      idx.map((i) => labels[i]),
    );
    u += auc * pos * neg;
    pairs += pos * neg;
  }
  if (pairs === 0) throw new Error("stepMatchedAuc: no stratum holds both classes");
  return u / pairs;
}

function checkStep(score: number, label: number, i: number): void {
  if (!Number.isFinite(score)) throw new Error(`stepMatchedAuc: score ${i} is ${score}`);
  if (label !== 0 && label !== 1)
    throw new Error(`stepMatchedAuc: label ${i} is ${label}, not 0 or 1`);
}

/**
 * Share of steps whose score is on the label's side of ½ (score > ½ for a
 * correct step, < ½ for an incorrect one; exactly ½ counts as wrong).
 * @throws Error when the lengths differ or there are no steps.
 */
export function stepAccuracy(scores: ArrayLike<number>, labels: ArrayLike<number>): number {
  if (labels.length !== scores.length)
    throw new Error(`stepAccuracy: ${scores.length} scores but ${labels.length} labels`);
  if (scores.length === 0) throw new Error("stepAccuracy: no steps");
  let right = 0;
  for (let i = 0; i < scores.length; i++)
    if (labels[i] === 1 ? scores[i] > 0.5 : scores[i] < 0.5) right++;
  return right / scores.length;
}
