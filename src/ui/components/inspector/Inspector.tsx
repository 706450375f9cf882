/** Rollout inspector: browse the kept sample groups per variant and step. */
import { useEffect, useState } from "react";
import { useLab, labStore } from "../../../store";
import { variantColor, variantLabel } from "../../../settings/variant-meta";
import { ImageCanvas } from "./ImageCanvas";
import { RolloutTable } from "./RolloutTable";
import { TokenView } from "./TokenView";
import { sharedGroups } from "../../lib/shared-groups";
import type { GroupView } from "../../../rl/step-types";

/** Distinct steps of a history, ascending. */
function historySteps(groups: readonly GroupView[]): number[] {
  return Array.from(new Set(groups.map((g) => g.step))).sort((a, b) => a - b);
}

export function Inspector() {
  const open = useLab((s) => s.inspectorOpen);
  const byVariant = useLab((s) => s.samples.byVariant);
  const [variant, setVariant] = useState<string | null>(null);
  const [stepIdx, setStepIdx] = useState<number | null>(null); // null = follow the latest
  const [groupIdx, setGroupIdx] = useState(0);
  // A callout's example: open its variant, step and prompt, and highlight the rollout.
  const focus = useLab((s) => s.rolloutFocus);
  const [highlight, setHighlight] = useState<{
    promptId: string;
    step: number;
    index: number;
  } | null>(null);
  useEffect(() => {
    if (!focus) return;
    const list = labStore.getState().samples.byVariant[focus.variant] ?? [];
    const steps = historySteps(list);
    const at = list.filter((g) => g.step === focus.step);
    setVariant(focus.variant);
    setStepIdx(steps.indexOf(focus.step) === steps.length - 1 ? null : steps.indexOf(focus.step));
    setGroupIdx(
      Math.max(
        0,
        at.findIndex((g) => g.promptId === focus.promptId && g.seed === focus.seed),
      ),
    );
    setHighlight({ promptId: focus.promptId, step: focus.step, index: focus.index });
  }, [focus]);
  if (!open) return null;
  const names = Object.keys(byVariant);
  const v = variant && byVariant[variant] ? variant : names[0];
  const groups = v ? byVariant[v] : [];
  const steps = historySteps(groups);
  const si = stepIdx === null ? steps.length - 1 : Math.min(stepIdx, steps.length - 1);
  const step = steps[si];
  const atStep = groups.filter((g) => g.step === step);
  const group = atStep[Math.min(groupIdx, atStep.length - 1)];
  return (
    <aside className="inspector" data-testid="inspector" aria-label="Rollout inspector">
      <div className="inspector-head">
        <h2>Rollout inspector</h2>
        <button
          type="button"
          onClick={() => labStore.getState().setInspectorOpen(false)}
          aria-label="Close inspector"
        >
          ×
        </button>
      </div>
      {names.length === 0 ? (
        <p className="muted">
          No rollouts yet. They appear here after the first training step: the trainer sends a few
          groups per step and the page keeps the last 200 per variant.
        </p>
      ) : (
        <>
          <div className="seg" role="tablist" aria-label="Variant">
            {names.map((n) => (
              <button
                key={n}
                type="button"
                role="tab"
                aria-selected={n === v}
                className={n === v ? "chip on" : "chip"}
                style={{ borderColor: variantColor(n) }}
                onClick={() => setVariant(n)}
              >
                {variantLabel(n)}
              </button>
            ))}
          </div>
          <div className="field slider">
            <label htmlFor="inspector-step">
              Step {step}{" "}
              <span className="muted small">
                ({si + 1} of {steps.length} kept{stepIdx === null ? ", following the latest" : ""})
              </span>
            </label>
            <input
              id="inspector-step"
              type="range"
              aria-label="Sample step"
              min={0}
              max={Math.max(steps.length - 1, 0)}
              value={si}
              onChange={(e) => {
                const i = Number(e.target.value);
                setStepIdx(i === steps.length - 1 ? null : i);
              }}
            />
          </div>
          {atStep.length > 1 && (
            <div className="seg" role="toolbar" aria-label="Prompt in this step">
              {atStep.map((g, i) => (
                <button
                  // biome-ignore lint/suspicious/noArrayIndexKey: a group's position in its step is its identity
                  key={i}
                  type="button"
                  className={g === group ? "chip on" : "chip"}
                  onClick={() => setGroupIdx(i)}
                >
                  prompt {i + 1}
                </button>
              ))}
            </div>
          )}
          {group && (
            <GroupDetails
              group={group}
              highlight={
                highlight && highlight.promptId === group.promptId && highlight.step === group.step
                  ? highlight.index
                  : null
              }
            />
          )}
        </>
      )}
    </aside>
  );
}

function GroupDetails({ group, highlight }: { group: GroupView; highlight: number | null }) {
  // The rollout whose token weights are shown (asked of the trainer only once opened).
  const [opened, setOpened] = useState<{ group: GroupView; index: number } | null>(null);
  const byVariant = useLab((s) => s.samples.byVariant);
  const open = opened?.group === group ? opened.index : null;
  const inconsistent = group.rollouts.filter((r) => r.judgment === "inconsistent").length;
  const lucky = group.rollouts.filter((r) => r.luckyGuess).length;
  return (
    <div className="group-details">
      <div className="prompt">
        <ImageCanvas image={group.image} />
        <div>
          <p className="question" data-testid="inspector-question">
            {group.question}
          </p>
          {group.options && (
            <ul className="options">
              {Object.entries(group.options).map(([letter, content]) => (
                <li
                  key={letter}
                  className={letter === group.answer || content === group.answer ? "correct" : ""}
                >
                  <b>{letter}.</b> {content}
                </li>
              ))}
            </ul>
          )}
          <p className="small">
            Ground truth: <b>{group.answer}</b> · <code className="muted">{group.promptId}</code>
          </p>
          <p className="small">
            {group.rollouts.filter((r) => r.verifierPassed).length}/{group.rollouts.length} passed
            the verifier ·{" "}
            <span className={inconsistent ? "bad-text" : ""}>{inconsistent} inconsistent</span> ·{" "}
            <span
              className={lucky ? "bad-text" : ""}
              title="Right answers whose reasoning is not the reference solution (ACRE §1 WR–CA, SCS Tab. 3)"
            >
              {lucky} lucky {lucky === 1 ? "guess" : "guesses"}
            </span>
          </p>
        </div>
      </div>
      <RolloutTable
        group={group}
        highlight={highlight}
        opened={open}
        onOpen={(index) => setOpened(index === open ? null : { group, index })}
      />
      {open !== null && (
        <TokenView group={group} index={open} shared={sharedGroups(group, byVariant)} />
      )}
      {group.judgeReply && (
        <details>
          <summary>Judge reply (raw JSON, as an LLM judge would emit)</summary>
          <pre className="judge-reply">{group.judgeReply}</pre>
        </details>
      )}
    </div>
  );
}
