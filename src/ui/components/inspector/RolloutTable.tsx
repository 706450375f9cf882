/** The G rollouts of one group: text, verifier, consistency, judge tier, components, reward, advantage. */
import type { GroupView } from "../../../rl/run-types";
import { Tip } from "../Field";

const num = (v: number) =>
  Number.isFinite(v)
    ? Math.abs(v) < 1e-3 && v !== 0
      ? v.toExponential(1)
      : v.toFixed(3)
    : String(v);

export function RolloutTable({ group }: { group: GroupView }) {
  const compKeys = Array.from(new Set(group.rollouts.flatMap((r) => Object.keys(r.components))));
  const hasRank = group.rollouts.some((r) => r.rank !== undefined && r.rank !== null);
  return (
    <table className="rollouts" data-testid="rollout-table">
      <thead>
        <tr>
          <th>#</th>
          <th>Rollout (reasoning → answer)</th>
          <th>
            verifier <Tip text="r_ver: does the final answer match the ground truth?" />
          </th>
          <th>
            reasoning{" "}
            <Tip text="Consistency judgment (GRR §4.1): does the conclusion implied by the trace equal the final answer? Inconsistent rows are highlighted." />
          </th>
          {hasRank && (
            <th>
              judge tier{" "}
              <Tip text="Groupwise judge rank among passed rollouts: 1 = best tier; equal numbers are ties." />
            </th>
          )}
          {compKeys.map((k) => (
            <th key={k}>{k}</th>
          ))}
          <th>
            total R <Tip text="The variant's total reward for this rollout." />
          </th>
          <th>
            advantage{" "}
            <Tip text="How much this rollout is pushed up (+) or down (−) relative to its group." />
          </th>
        </tr>
      </thead>
      <tbody>
        {group.rollouts.map((r, i) => (
          <tr
            // biome-ignore lint/suspicious/noArrayIndexKey: a rollout's index in its group is its identity
            key={i}
            className={[
              r.judgment === "inconsistent" ? "inconsistent" : "",
              r.unscorable ? "unscorable" : "",
            ].join(" ")}
            data-judgment={r.judgment}
          >
            <td>{i + 1}</td>
            <td className="rollout-text">
              <code>{r.text}</code>
              {r.unscorable && <span className="badge warn">unscorable</span>}
            </td>
            <td className={r.verifierPassed ? "pass" : "fail"}>
              {r.verifierPassed ? "✓ pass" : "✗ fail"}
            </td>
            <td>
              {r.judgment === "inconsistent" ? (
                <span className="badge bad">inconsistent</span>
              ) : r.judgment === "consistent" ? (
                "consistent"
              ) : (
                "n/a"
              )}
            </td>
            {hasRank && <td>{r.rank ?? "–"}</td>}
            {compKeys.map((k) => (
              <td key={k} className="num">
                {k in r.components ? num(r.components[k]) : "–"}
              </td>
            ))}
            <td className="num">
              <b>{num(r.total)}</b>
            </td>
            <td className={`num ${r.advantage > 0 ? "pos" : r.advantage < 0 ? "neg" : ""}`}>
              {num(r.advantage)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
