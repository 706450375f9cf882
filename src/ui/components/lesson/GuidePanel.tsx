/**
 * The guided view: what the curves show, in plain words, as it happens: the
 * run's callouts (rules over its held-out metrics, src/ui/lib/callouts.ts),
 * each linking to its chart and to an example rollout in the inspector; then
 * the task, what each variant pays for, and what to watch. On by default for
 * a first visit; one click hides it.
 */
import { useMemo } from "react";
import { labStore, useLab } from "../../../store";
import { overviewMetrics } from "../../../store/lesson";
import { presetEntry } from "../../../settings/presets";
import { metricDef } from "../../../settings/metric-table";
import { variantEntry, isVariantName } from "../../../settings/variant-table";
import {
  CALLOUT_RULES,
  computeCallouts,
  metricName,
  type Callout,
  type ExampleWant,
} from "../../lib/callouts";
import { findExample } from "../../lib/callout-examples";
import { READ_ORDER, stepText, taskText } from "../../lib/guide-text";
import { variantColor, variantLabel } from "../../../settings/variant-meta";
import { useThrottledMetrics } from "../charts/useThrottledMetrics";
import { CreditCallouts } from "./CreditCallouts";
import { CREDIT_RULE_TEXT } from "../../lib/credit-callouts";
import { DetectorsSection } from "./DetectorsSection";

const WANT_TEXT: Record<ExampleWant, string> = {
  "right-inconsistent": "a right answer its steps do not support",
  "right-consistent": "a right answer its steps support",
  wrong: "a wrong answer",
  "reask-changed": "an answer that changed when the options were shuffled",
};

function CalloutItem({ c, latest }: { c: Callout; latest: boolean }) {
  const groups = useLab((s) => (c.example ? s.samples.byVariant[c.example.variant] : undefined));
  const example = useMemo(
    () => (c.example && groups ? findExample(groups, c.example.want, c.step) : null),
    [c, groups],
  );
  const st = labStore.getState();
  return (
    <li className={latest ? "callout new" : "callout"} data-testid="callout" data-rule={c.rule}>
      <p>
        {latest && <span className="badge">new</span>} {c.text}
      </p>
      <div className="callout-links">
        <button type="button" className="small-btn" onClick={() => st.focusChart(c.chart)}>
          Show the {metricName(c.metric)} chart
        </button>
        {c.example && (
          <button
            type="button"
            className="small-btn"
            disabled={!example}
            data-testid="callout-example"
            title={example ? undefined : "No kept rollout of this kind yet"}
            onClick={() => example && st.focusRollout(example)}
          >
            Show {WANT_TEXT[c.example.want]} ({variantLabel(c.example.variant)})
          </button>
        )}
      </div>
    </li>
  );
}

export function GuidePanel() {
  const open = useLab((s) => s.guideOpen);
  const exp = useLab((s) => s.sentExperiment ?? s.experiment);
  const preset = useLab((s) => s.presetName);
  const step = useLab((s) => s.step);
  const playing = useLab((s) => s.playback !== null);
  const m = useThrottledMetrics();
  const metricsKey = overviewMetrics(preset, exp).join(",");
  const metrics = metricsKey.split(",");
  const callouts = useMemo(
    () =>
      computeCallouts({
        evalRows: Object.fromEntries(Object.entries(m.byVariant).map(([v, r]) => [v, r.eval])),
        markers: m.markers,
        evalSize: exp.evalSize,
        metrics: metricsKey.split(","),
      }),
    [m, exp.evalSize, metricsKey],
  );
  if (!open) return null;
  const lastEval = Math.max(
    -1,
    ...Object.values(m.byVariant).flatMap((r) => r.eval.map((x) => x.step)),
  );
  const trained = Object.values(m.byVariant).some((r) => r.train.length > 0);
  const multiSeed = (exp.seeds?.length ?? 1) > 1;
  const watch = preset ? presetEntry(preset).watch : null;
  const whenItShows = preset ? (presetEntry(preset).whenItShows ?? null) : null;
  return (
    <aside className="guide" aria-label="Guided view" data-testid="guide">
      <div className="guide-head">
        <h2>What is happening</h2>
        <button
          type="button"
          className="small-btn"
          onClick={() => labStore.getState().setGuideOpen(false)}
          aria-label="Hide the guided view"
        >
          Hide
        </button>
      </div>
      <section aria-label="Now">
        {!trained ? (
          <p data-testid="guide-now">
            {playing ? (
              <>
                <b>Step 0 of the recording:</b> every variant is still the same cold start. Press{" "}
                <b>Play</b>.
              </>
            ) : (
              <>
                <b>Nothing trained yet.</b> Press <b>Train</b>.
              </>
            )}{" "}
            {stepText(exp)}
          </p>
        ) : (
          <p data-testid="guide-now">
            <b>
              {playing ? "Recorded step" : "Step"} {step}
            </b>
            {lastEval > 0 ? `, last held-out eval at step ${lastEval}` : ""}.{" "}
            {callouts.length === 0
              ? lastEval > 0
                ? "So far every variant's held-out metrics stay within their bands: no difference beyond noise yet."
                : `The first held-out eval after step 0 comes at step ${exp.algorithm.evalEvery}.`
              : `${callouts.length} thing${callouts.length === 1 ? "" : "s"} the metrics show, newest first:`}
          </p>
        )}
        {callouts.length > 0 && (
          <ul className="callouts" data-testid="callouts">
            {callouts.map((c) => (
              <CalloutItem key={c.id} c={c} latest={c.step === lastEval} />
            ))}
          </ul>
        )}
        <CreditCallouts m={m} variants={exp.variants.map((v) => v.name)} />
      </section>
      {trained && <DetectorsSection m={m} evalSize={exp.evalSize} />}
      <section aria-label="The task">
        <h3>The task</h3>
        {taskText(exp).map((t) => (
          <p key={t}>{t}</p>
        ))}
      </section>
      <section aria-label="What each variant pays for">
        <h3>What each variant pays for</h3>
        <ul className="guide-variants">
          {exp.variants.map((v) => (
            <li key={v.name}>
              <span className="swatch" style={{ background: variantColor(v.name) }} />
              <b>{variantLabel(v.name)}:</b>{" "}
              {isVariantName(v.name) ? variantEntry(v.name).blurb : ""}
            </li>
          ))}
        </ul>
      </section>
      <section aria-label="What to watch">
        <h3>What to watch</h3>
        <p data-testid="guide-read-first">{READ_ORDER.guide}</p>
        {watch && <p>{watch}</p>}
        {whenItShows && (
          <p data-testid="guide-when">
            <b>When a difference shows:</b> {whenItShows}
          </p>
        )}
        <ul className="guide-metrics">
          {metrics.map((k) => (
            <li key={k}>
              <b>{metricName(k)}:</b> {metricDef(k)?.description ?? k}
            </li>
          ))}
        </ul>
      </section>
      <details className="guide-rules">
        <summary>How the callouts are made</summary>
        <p>
          Each callout is a rule over the held-out metrics; the band is the 95 %{" "}
          {multiSeed
            ? "Student-t interval of the mean over the seeds"
            : `Wilson interval of one seed's ${exp.evalSize} held-out answers`}
          .
        </p>
        <ul>
          {CALLOUT_RULES.map((r) => (
            <li key={r.id}>
              <b>{r.id}:</b> {r.description}
            </li>
          ))}
          <li>{CREDIT_RULE_TEXT}</li>
        </ul>
      </details>
    </aside>
  );
}
