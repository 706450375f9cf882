/**
 * The token view of one rollout: each response token shaded by the weight
 * the update gives its log-probability (the trainer's `tokenWeights` answer,
 * `coef`: blue reinforced, red suppressed, src/ui/lib/token-shade.ts), the
 * numbers on hover, and, for the token picked, the objective with each term's
 * value (./ObjectiveTerms.tsx). When the group is shared (step 1: every
 * variant starts from the same checkpoint and draws the same rollouts), the
 * same rollout under another variant is shaded beside it on the same scale.
 * Asks the trainer only for the groups opened here (`tokenWeights`
 * command), once per group and variant.
 */
import { useEffect, useMemo, useState } from "react";
import { labStore, useLab } from "../../../store";
import type { GroupView } from "../../../rl/step-types";
import type { TrainerCommand } from "../../../workers/protocol";
import { tokenWeightsKey, type TokenWeightsAnswer } from "../../../store/token-weights";
import { variantColor, variantLabel } from "../../../settings/variant-meta";
import { shadeScale, tokenShade } from "../../lib/token-shade";
import { ROLLOUT_CLASSES } from "../../../settings/credit-table";
import { ObjectiveTerms } from "./ObjectiveTerms";
import "../../credit.css";

/** Where a group is: what the trainer's `tokenWeights` command names. */
interface GroupRef {
  variant: string;
  step: number;
  promptId: string;
  seed?: number;
}

const refOf = (g: GroupView): GroupRef => ({
  variant: g.variant,
  step: g.step,
  promptId: g.promptId,
  ...(g.seed !== undefined ? { seed: g.seed } : {}),
});

/** Asks the trainer for a group's token weights unless asked already (answered or pending). */
function ask(ref: GroupRef): void {
  const st = labStore.getState();
  const key = tokenWeightsKey(ref);
  if (st.tokenWeights[key] || !st.trainer) return;
  labStore.setState((s) => ({ tokenWeights: { ...s.tokenWeights, [key]: { pending: true } } }));
  st.trainer.send({ type: "tokenWeights", ...ref } satisfies TrainerCommand);
}

const f3 = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : String(v));
const f4 = (v: number) =>
  Number.isFinite(v) ? (Math.abs(v) < 1e-3 && v !== 0 ? v.toExponential(2) : v.toFixed(4)) : "–";

/** One variant's rollout as shaded tokens. */
function TokenRow({
  variant,
  answer,
  index,
  scale,
  picked,
  onPick,
}: {
  variant: string;
  answer: TokenWeightsAnswer;
  index: number;
  scale: number;
  picked: number | null;
  onPick: (t: number) => void;
}) {
  const r = answer.rollouts[index];
  if (!r) return <p className="muted">No rollout {index + 1} in the trainer's answer.</p>;
  return (
    <div className="token-row" data-testid={`token-row-${variant}`}>
      <div className="token-row-head">
        <span className="swatch" style={{ background: variantColor(variant) }} />
        <b>{variantLabel(variant)}</b>{" "}
        <span className="muted small">
          advantage {f3(r.advantage)} · {answer.estimator} · ε {answer.clipEps} · β {answer.beta}
        </span>
      </div>
      <p className="tokens">
        {r.tokens.map((tok, t) => {
          const shade = tokenShade(r.coef[t], scale);
          return (
            <button
              // biome-ignore lint/suspicious/noArrayIndexKey: a token's position is its identity
              key={t}
              type="button"
              className={t === picked ? "token picked" : "token"}
              style={shade}
              data-coef={r.coef[t]}
              title={[
                `token ${t + 1}: ${tok}`,
                `logπ ${f4(r.logprob[t])} · logπ_ref ${f4(r.refLogprob[t])}`,
                `ratio ρ ${f4(r.ratio[t])}${r.clipped[t] ? " (clipped)" : ""}`,
                `pg ${f4(r.pgCoef[t])} + KL ${f4(r.klCoef[t])} = weight ${f4(r.coef[t])}`,
              ].join("\n")}
              onClick={() => onPick(t)}
            >
              {tok}
            </button>
          );
        })}
      </p>
    </div>
  );
}

/**
 * The token view of rollout `index` of `group`; `shared` are the same
 * group's copies under the run's other variants (step 1), if any.
 */
export function TokenView({
  group,
  index,
  shared,
}: {
  group: GroupView;
  index: number;
  shared: readonly GroupView[];
}) {
  const [other, setOther] = useState<string | null>(null);
  const [picked, setPicked] = useState<number | null>(null);
  const noTrainer = useLab((s) => s.noTraining || s.playback !== null || s.trainer === null);
  const beside = shared.find((g) => g.variant === other) ?? shared[0] ?? null;
  const refs = useMemo(() => [refOf(group), ...(beside ? [refOf(beside)] : [])], [group, beside]);
  useEffect(() => {
    if (!noTrainer) for (const r of refs) ask(r);
  }, [refs, noTrainer]);
  const k0 = tokenWeightsKey(refs[0]);
  const k1 = refs[1] ? tokenWeightsKey(refs[1]) : null;
  const a0 = useLab((s) => s.tokenWeights[k0] ?? null);
  const a1 = useLab((s) => (k1 ? (s.tokenWeights[k1] ?? null) : null));
  const answers = k1 ? [a0, a1] : [a0];
  const ready = answers.filter((a): a is TokenWeightsAnswer => a !== null && "rollouts" in a);
  const scale = shadeScale(ready.map((a) => a.rollouts[index]?.coef ?? []));
  // The rollout's class (docs/reward-spec.md §6), so the view says what kind of answer it shades.
  const cls = ROLLOUT_CLASSES.find((c) => c.key === group.rollouts[index]?.rolloutClass) ?? null;
  if (noTrainer)
    return (
      <p className="muted" data-testid="token-view-none">
        The update's weight per token comes from the trainer's live model: train here to see it (a
        recording keeps no model).
      </p>
    );
  return (
    <section className="token-view" data-testid="token-view" aria-label="Token weights">
      <p className="token-view-head">
        <b>Rollout {index + 1}: what the update does to each token</b>
        {cls && (
          <span className="small" data-testid="token-view-class" title={cls.definition}>
            {" "}
            · <b>{cls.label}</b> ({cls.definition.replace(/\.$/, "")}; ground truth {group.answer})
          </span>
        )}
        <span className="muted small">
          {" "}
          · <span className="key-pos">blue</span> reinforced, <span className="key-neg">red</span>{" "}
          suppressed; hover a token for its numbers, click it for the objective's terms
        </span>
      </p>
      {shared.length > 1 && (
        <div className="seg" role="toolbar" aria-label="Compare with">
          <span className="label">Same rollout under:</span>
          {shared.map((g) => (
            <button
              key={g.variant}
              type="button"
              className={g === beside ? "chip on" : "chip"}
              onClick={() => setOther(g.variant)}
            >
              {variantLabel(g.variant)}
            </button>
          ))}
        </div>
      )}
      {refs.map((r, i) => {
        const a = answers[i];
        if (a === null || "pending" in a)
          return (
            <p key={r.variant} className="muted" data-testid="token-view-pending">
              Asking the trainer for {variantLabel(r.variant)}'s token weights…
            </p>
          );
        if ("error" in a)
          return (
            <p key={r.variant} className="bad-text" data-testid="token-view-error">
              {variantLabel(r.variant)}: {a.error}
            </p>
          );
        return (
          <TokenRow
            key={r.variant}
            variant={r.variant}
            answer={a}
            index={index}
            scale={scale}
            picked={picked}
            onPick={setPicked}
          />
        );
      })}
      {picked !== null &&
        ready.map((a) =>
          a.rollouts[index] ? (
            <ObjectiveTerms key={a.variant} answer={a} index={index} token={picked} />
          ) : null,
        )}
    </section>
  );
}
