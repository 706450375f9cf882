/**
 * The lab's policy objective written out for one token, with each term's
 * value (the idea of UNIPO's objective explainer, for the lab's own loss,
 * docs/reward-spec.md §1): the clipped surrogate min(ρA, clip(ρ, 1−ε, 1+ε)A)
 * with ε = clipEps, and β·KL(k3) as a loss term; for the estimators that fold
 * the KL into the reward (REINFORCE++, src/settings/estimator-table.ts
 * `klInReward`) the KL is already inside A and the loss has no KL term. The
 * figures are the trainer's (`tokenWeights` answer); the page computes none
 * of the loss, it only places them in the formula.
 */
import type { TokenWeightsAnswer } from "../../../store/token-weights";
import { estimatorEntry } from "../../../settings/estimator-table";
import { variantLabel } from "../../../settings/variant-meta";

const f4 = (v: number) =>
  Number.isFinite(v) ? (Math.abs(v) < 1e-3 && v !== 0 ? v.toExponential(2) : v.toFixed(4)) : "–";
const sg = (v: number) => (v >= 0 ? `+${f4(v)}` : `−${f4(-v)}`);

export function ObjectiveTerms({
  answer,
  index,
  token,
}: {
  answer: TokenWeightsAnswer;
  index: number;
  token: number;
}) {
  const r = answer.rollouts[index];
  if (!r || token >= r.tokens.length) return null;
  const folded = estimatorEntry(answer.estimator).klInReward;
  const eps = answer.clipEps;
  const rho = r.ratio[token];
  const lo = 1 - eps;
  const hi = 1 + eps;
  const x = r.refLogprob[token] - r.logprob[token];
  return (
    <div className="objective" data-testid="objective-terms">
      <p className="objective-head">
        <b>{variantLabel(answer.variant)}</b>, token {token + 1} “{r.tokens[token]}”
      </p>
      <p className="formula">
        ℓ = −(1/G)·(1/|o|)·Σ<sub>t</sub> min(ρ<sub>t</sub>A, clip(ρ<sub>t</sub>, 1−ε, 1+ε)A)
        {folded ? "" : " + β·KL"}
        <sub>k3</sub>
        {folded ? (
          <span className="muted"> · KL folded into the reward (k1), so it is inside A</span>
        ) : null}
      </p>
      <table className="objective-table">
        <tbody>
          <tr>
            <th>ρ = exp(logπ − logπ_old)</th>
            <td>{f4(rho)}</td>
            <td className="muted">
              clip range [{lo.toFixed(2)}, {hi.toFixed(2)}]
              {r.clipped[token] ? ": clipped, this token's surrogate passes no gradient" : ""}
            </td>
          </tr>
          <tr>
            <th>A (the rollout's advantage)</th>
            <td>{sg(r.advantage)}</td>
            <td className="muted">{answer.estimator}</td>
          </tr>
          {!folded && (
            <tr>
              <th>x = logπ_ref − logπ</th>
              <td>{sg(x)}</td>
              <td className="muted">
                {f4(r.refLogprob[token])} − ({f4(r.logprob[token])}); KL<sub>k3</sub> = eˣ − x − 1,
                β = {answer.beta}
              </td>
            </tr>
          )}
          <tr>
            <th>surrogate's weight on logπ</th>
            <td>{sg(r.pgCoef[token])}</td>
            <td className="muted">from min(ρA, clip(ρ)A), in the loss's normalisation</td>
          </tr>
          <tr>
            <th>KL term's weight on logπ</th>
            <td>{sg(r.klCoef[token])}</td>
            <td className="muted">{folded ? "none: the KL is in A" : "from β·KL_k3"}</td>
          </tr>
          <tr className="total">
            <th>update's weight on logπ(token)</th>
            <td>
              <b>{sg(r.coef[token])}</b>
            </td>
            <td className="muted">
              {r.coef[token] > 0
                ? "reinforced: the step raises this token's probability"
                : r.coef[token] < 0
                  ? "suppressed: the step lowers it"
                  : "untouched"}
            </td>
          </tr>
        </tbody>
      </table>
    </div>
  );
}
