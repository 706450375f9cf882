/**
 * The credit chart on the first screen: what each variant's reward and
 * advantage paid each kind of rollout, step by step, from the run's (or the
 * recording's) training rows. Switches between mean advantage (what the
 * update used), mean reward and share of rollouts. Says so when the rows
 * carry no credit values (a recording or saved run made before them).
 */
import { useMemo, useState } from "react";
import { useLab } from "../../../store";
import { ROLLOUT_CLASSES } from "../../../settings/credit-table";
import { buildCreditLines, hasCreditMetrics, type CreditMeasure } from "../../lib/credit-data";
import { CreditChart, MEASURE_TITLE } from "./CreditChart";
import { useThrottledMetrics } from "./useThrottledMetrics";
import { READ_ORDER } from "../../lib/guide-text";
import "../../credit.css";

const MEASURES: readonly CreditMeasure[] = ["advantage", "reward", "share"];

/** What the y axis means, one sentence per measure. */
const MEASURE_NOTE: Record<CreditMeasure, string> = {
  advantage:
    "The mean advantage each kind of rollout got in the update (after the estimator): above 0 it was reinforced, below 0 suppressed.",
  reward: "The mean total reward each kind of rollout was paid, before the estimator.",
  share: "How many of the step's rollouts fell in each class.",
};

export function CreditPanel() {
  const m = useThrottledMetrics();
  const bold = useLab((s) => s.presentation);
  const playing = useLab((s) => s.playback !== null || s.noTraining);
  const variants = useLab((s) =>
    (s.sentExperiment ?? s.experiment).variants.map((v) => v.name).join(","),
  );
  const [measure, setMeasure] = useState<CreditMeasure>("advantage");
  // The run's own variants (forks and SFT rows left out: their styles would collide with the classes').
  const rows = useMemo(() => {
    const out: Record<string, (typeof m.byVariant)[string]["train"]> = {};
    for (const v of variants.split(",")) if (m.byVariant[v]) out[v] = m.byVariant[v].train;
    return out;
  }, [m, variants]);
  const lines = useMemo(() => buildCreditLines(rows, ROLLOUT_CLASSES, measure), [rows, measure]);
  const trained = Object.values(rows).some((r) => r.length > 0);
  const has = hasCreditMetrics(rows);
  return (
    <section
      className="credit-panel"
      aria-label="What each variant pays for"
      data-testid="credit-panel"
    >
      <div className="credit-head">
        <h2>What each variant pays for</h2>
        <span className="role-tag" data-testid="credit-role" title={READ_ORDER.credit.text}>
          {READ_ORDER.credit.tag}
        </span>
        <div className="seg" role="toolbar" aria-label="Credit measure">
          {MEASURES.map((k) => (
            <button
              key={k}
              type="button"
              className={measure === k ? "chip on" : "chip"}
              aria-pressed={measure === k}
              data-testid={`credit-measure-${k}`}
              onClick={() => setMeasure(k)}
            >
              {MEASURE_TITLE[k]}
            </button>
          ))}
        </div>
      </div>
      <p className="chart-caption">
        {MEASURE_NOTE[measure]} Training rollouts, every step; the axis follows the lines (a band
        wider than it is cut at its edge); a class with no rollout at a step has no point.
      </p>
      {!trained ? (
        <p className="muted credit-empty" data-testid="credit-empty">
          After the first step: one line per variant and kind of answer.
        </p>
      ) : !has ? (
        <p className="muted credit-empty" data-testid="credit-missing">
          This {playing ? "recording" : "run"} was made before the lab recorded what each rollout
          class is paid, so it has no credit values to draw. Train the experiment here to see them.
        </p>
      ) : (
        <CreditChart
          lines={lines}
          classes={ROLLOUT_CLASSES}
          variants={variants.split(",")}
          measure={measure}
          height={bold ? 300 : 210}
          bold={bold}
        />
      )}
    </section>
  );
}
