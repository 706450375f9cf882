/** The G rollouts of one group: text, verifier, consistency, judge tier, components, reward, advantage. */
import { useEffect, useRef } from "react";
import type { GroupView } from "../../../rl/step-types";
import { Tip } from "../Field";
import { ROLLOUT_CLASSES } from "../../../settings/credit-table";

const num = (v: number) =>
  Number.isFinite(v)
    ? Math.abs(v) < 1e-3 && v !== 0
      ? v.toExponential(1)
      : v.toFixed(3)
    : String(v);

/** An answer as an option: `B (9)` when it is a letter of `options`, else the answer itself. */
function optionText(answer: string | null, options: Record<string, string> | null): string {
  if (answer === null) return "none";
  const content = options?.[answer.trim()];
  return content === undefined ? answer : `${answer.trim()} (${content})`;
}

/** SCS: where the rollout was cut and which option each continuation ended on. */
function ScsDetail({
  scs,
  options,
}: {
  scs: NonNullable<GroupView["rollouts"][number]["scs"]>;
  options: Record<string, string> | null;
}) {
  const distinct = new Set(scs.continuations.map((c) => c.answer ?? "\u0000none")).size;
  return (
    <div className="pass-detail" data-testid="scs-detail">
      cut after {scs.keptTokens} tokens:{" "}
      <code className="kept">{scs.keptText || "(nothing kept)"}</code>
      <br />
      {scs.continuations.length} continuations ended on{" "}
      {scs.continuations.map((c, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a continuation's index is its identity
        <span key={i} className="badge" title={`image noise σ = ${c.sigma.toFixed(3)}`}>
          {optionText(c.answer, options)}
        </span>
      ))}{" "}
      <span className={distinct > 1 ? "bad-text" : ""} data-testid="scs-distinct">
        ({distinct} distinct)
      </span>
    </div>
  );
}

/** PRM: each step's score by the learned PRM (its least likely token over steps 1..k). */
function PrmDetail({ scores }: { scores: readonly number[] }) {
  return (
    <div className="pass-detail" data-testid="prm-detail">
      PRM step scores{" "}
      {scores.length === 0
        ? "(no steps)"
        : scores.map((s, k) => (
            <span
              // biome-ignore lint/suspicious/noArrayIndexKey: a step's index is its identity
              key={k}
              className={`badge ${s < 0.5 ? "bad" : ""}`}
              title={`Step ${k + 1}: smallest token probability over steps 1..${k + 1} = ${s.toFixed(3)}`}
            >
              {k + 1}: {s.toFixed(2)}
            </span>
          ))}
    </div>
  );
}

/** ACRE: the shuffled options of the second ask, and both answers with the option contents they name. */
function ReaskDetail({
  reask,
  options,
}: {
  reask: NonNullable<GroupView["rollouts"][number]["reask"]>;
  options: Record<string, string> | null;
}) {
  const shown = Object.keys(reask.options)
    .sort()
    .map((l) => `${l}: ${reask.options[l]}`)
    .join("  ");
  const first =
    reask.firstAnswer === undefined ? undefined : optionText(reask.firstAnswer, options);
  const firstContent = reask.firstAnswer != null ? options?.[reask.firstAnswer.trim()] : undefined;
  const secondContent = reask.answer !== null ? reask.options[reask.answer.trim()] : undefined;
  const same = firstContent !== undefined && firstContent === secondContent;
  return (
    <div className="pass-detail" data-testid="reask-detail">
      {first !== undefined && (
        <>
          first answer <b>{first}</b>;{" "}
        </>
      )}
      re-asked with options <code>{shown}</code>, same trace → answered{" "}
      <b>{optionText(reask.answer, reask.options)}</b>
      {first !== undefined && (
        <span className={same ? "" : "bad-text"} data-testid="reask-same">
          {" "}
          ({same ? "same option" : "another option"})
        </span>
      )}
    </div>
  );
}

/** The classes a reward is built to pay less than a faithful right answer (shown as a warning). */
const FLAGGED = new Set(["flawed-right", "unsupported", "index-bound"]);

/** A rollout's class (src/settings/credit-table.ts ROLLOUT_CLASSES), its definition and source on hover. */
function ClassBadge({ cls }: { cls: string }) {
  const def = ROLLOUT_CLASSES.find((c) => c.key === cls);
  return (
    <span
      className={FLAGGED.has(cls) ? "badge bad" : "badge"}
      data-testid="rollout-class"
      title={def ? `${def.definition} (${def.paperTerm})` : cls}
    >
      {def?.label ?? cls}
    </span>
  );
}

/**
 * `highlight`: the rollout a callout links to (scrolled to and marked), or
 * null; `onOpen`: a row's "tokens" button opens that rollout's token view
 * (`opened`: the one open).
 */
export function RolloutTable({
  group,
  highlight = null,
  opened = null,
  onOpen,
}: {
  group: GroupView;
  highlight?: number | null;
  opened?: number | null;
  onOpen?: (index: number) => void;
}) {
  const marked = useRef<HTMLTableRowElement>(null);
  useEffect(() => {
    if (highlight !== null)
      marked.current?.scrollIntoView?.({ block: "center", behavior: "smooth" });
  }, [highlight]);
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
            ref={i === highlight ? marked : undefined}
            className={[
              r.judgment === "inconsistent" ? "inconsistent" : "",
              r.unscorable ? "unscorable" : "",
              i === highlight ? "focused" : "",
            ].join(" ")}
            data-judgment={r.judgment}
            data-class={r.rolloutClass}
            data-focused={i === highlight ? "1" : undefined}
          >
            <td>
              {i + 1}
              {onOpen && (
                <button
                  type="button"
                  className={opened === i ? "small-btn on" : "small-btn"}
                  aria-pressed={opened === i}
                  data-testid="open-tokens"
                  title="Show what the update does to each token of this rollout"
                  onClick={() => onOpen(i)}
                >
                  tokens
                </button>
              )}
            </td>
            <td className="rollout-text">
              <code>{r.text}</code>
              {r.unscorable && <span className="badge warn">unscorable</span>}
              {r.rolloutClass ? (
                <ClassBadge cls={r.rolloutClass} />
              ) : (
                r.luckyGuess && (
                  <span
                    className="badge bad"
                    data-testid="lucky-guess"
                    title="Right answer, but the reasoning is not the reference solution (a misread digit or a wrong step): a lucky guess (ACRE §1 WR–CA, SCS Tab. 3)."
                  >
                    lucky guess
                  </span>
                )
              )}
              {r.scs && <ScsDetail scs={r.scs} options={group.options} />}
              {r.reask && <ReaskDetail reask={r.reask} options={group.options} />}
              {r.stepScores && <PrmDetail scores={r.stepScores} />}
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
