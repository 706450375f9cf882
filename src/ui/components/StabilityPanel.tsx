/**
 * "Judge stability" (GRR §4.3.4): one button asks the trainer worker to
 * sample fixed groups from the current run's policy and re-judge them several
 * times per judge-noise setting; the page only draws the answer (pointwise vs
 * groupwise variance per setting, and the reduction). No math here.
 */
import { useState } from "react";
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { labStore, useLab } from "../../store";
import type { StabilityPolicy } from "../../experiments/stability-study";
import type { TrainerCommand } from "../../workers/protocol";
import { variantColor, variantLabel } from "../../settings/variant-meta";
import { Tip } from "./Field";

/** Sizes of the page's study (lab choice: seconds on a CPU adapter; the paper: 500 prompts × 8, 4 repeats). */
const PANEL_STUDY = { prompts: 16, groupSize: 8, repeats: 4 } as const;

const ABOUT =
  "GRR §4.3.4: the same rollouts are rewarded several times by the noisy judge; the per-rollout variance of the reward, averaged, " +
  "measures how stable each reward is (paper: pointwise 0.026, groupwise 0.016, −37.6 %). The lab's judge has perception noise σ_j " +
  "(both kinds of call), a calibration offset σ_b (pointwise calls only) and a tie margin δ (groupwise calls). Every setting re-judges " +
  "the same rollouts with the same random draws.";

const fmt = (v: number) => (v === 0 ? "0" : Math.abs(v) < 1e-3 ? v.toExponential(2) : v.toFixed(4));
const pct = (v: number) => `${(v * 100).toFixed(1)} %`;

export function StabilityPanel() {
  const ready = useLab((s) => s.ready);
  const phase = useLab((s) => s.phase);
  const sent = useLab((s) => s.sentExperiment);
  const variants = sent?.variants.map((v) => v.name) ?? [];
  const step = useLab((s) => s.step);
  const stability = useLab((s) => s.stability);
  const [policy, setPolicy] = useState<StabilityPolicy>("reference");
  // The answer version we are waiting to be overtaken by (null: not waiting).
  const [waitingFor, setWaitingFor] = useState<number | null>(null);
  const pending = waitingFor !== null && stability.version === waitingFor;
  const noRun = ready === null || phase === "loading";
  const chosen = policy === "reference" || variants.includes(policy) ? policy : "reference";

  const measure = () => {
    const t = labStore.getState().trainer;
    if (!t) {
      labStore
        .getState()
        .reportError(
          "The trainer is not connected; the stability study was not sent.",
          false,
          "page",
        );
      return;
    }
    setWaitingFor(stability.version);
    t.send({ type: "stability", policy: chosen, ...PANEL_STUDY } satisfies TrainerCommand);
  };

  const result = !pending ? stability.result : null;
  const data =
    result?.settings.map((s) => ({
      label: s.label,
      pointwise: s.pointwise,
      groupwise: s.groupwise,
    })) ?? [];
  return (
    <section
      className="runs stability-panel"
      aria-label="Judge stability"
      data-testid="stability-panel"
    >
      <h3>
        Judge stability <Tip text={ABOUT} />
      </h3>
      {noRun ? (
        <p className="muted small" data-testid="stability-no-run">
          No run is loaded yet: the study samples rollouts from the run's model, so wait until the
          trainer is ready.
        </p>
      ) : (
        <p className="small">
          <label>
            policy{" "}
            <select
              value={chosen}
              onChange={(e) => setPolicy(e.target.value as StabilityPolicy)}
              disabled={pending}
            >
              <option value="reference">cold start (reference)</option>
              {variants.map((v) => (
                <option key={v} value={v}>
                  {variantLabel(v)} at step {step}
                </option>
              ))}
            </select>
          </label>{" "}
          <button type="button" onClick={measure} disabled={pending} data-testid="stability-run">
            {pending ? "Measuring…" : "Measure judge stability"}
          </button>{" "}
          <span className="muted">
            {PANEL_STUDY.prompts} prompts × {PANEL_STUDY.groupSize} rollouts, {PANEL_STUDY.repeats}{" "}
            repeats per setting; training pauses while it runs
          </span>
        </p>
      )}
      {!pending && stability.error && (
        <p className="small" role="alert" data-testid="stability-error">
          Could not measure: {stability.error}
        </p>
      )}
      {result && (
        <div data-testid="stability-result" data-settings={result.settings.length}>
          <p className="muted small">
            {result.policy === "reference"
              ? "cold start"
              : `${variantLabel(result.policy)} at step ${result.step}`}
            : {result.prompts} prompts × {result.groupSize} rollouts (τ = {result.temperature}),{" "}
            {pct(result.passRate)} pass the verifier (only those get a rank reward),{" "}
            {result.repeats} repeats, seed {result.seed}. Variance in squared reward units.
          </p>
          <ResponsiveContainer width="100%" height={190}>
            <BarChart data={data} margin={{ top: 6, right: 12, bottom: 0, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#e4e7eb" />
              <XAxis dataKey="label" fontSize={11} interval={0} />
              <YAxis width={62} fontSize={11} tickFormatter={fmt} />
              <Tooltip
                formatter={(v, name) => [fmt(Number(v)), String(name)]}
                contentStyle={{ fontSize: 12 }}
              />
              <Legend wrapperStyle={{ fontSize: 12 }} />
              <Bar
                dataKey="pointwise"
                name="pointwise GR"
                fill={variantColor("pointwise-gr")}
                isAnimationActive={false}
              />
              <Bar
                dataKey="groupwise"
                name="GRR (groupwise)"
                fill={variantColor("grr")}
                isAnimationActive={false}
              />
            </BarChart>
          </ResponsiveContainer>
          <table className="runs-table" data-testid="stability-table">
            <thead>
              <tr>
                <th>setting</th>
                <th>σ_j</th>
                <th>σ_b</th>
                <th>δ</th>
                <th>pointwise var</th>
                <th>groupwise var</th>
                <th>reduction</th>
              </tr>
            </thead>
            <tbody>
              {result.settings.map((s) => (
                <tr key={s.label}>
                  <td>{s.label}</td>
                  <td>{s.judge.sigmaJ}</td>
                  <td>{s.judge.sigmaB}</td>
                  <td>{s.judge.delta}</td>
                  <td>{fmt(s.pointwise)}</td>
                  <td>{fmt(s.groupwise)}</td>
                  <td title="1 − groupwise / pointwise (paper: 37.6 %); negative: the ranking is the less stable one here">
                    {pct(s.reduction)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
