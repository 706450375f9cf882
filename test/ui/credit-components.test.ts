/**
 * The credit chart, its panel and the token view's objective rendered to
 * HTML (react-dom/server, no browser; the plot itself needs a DOM to size):
 * the chart's line count and class legend, the shipped scs-faint recording's
 * credit chart (its class `flawed-right` stored under the earlier name
 * `lucky-guess`), the panel's note for a recording made before the credit
 * values and its "read this first" tag, and each objective term's value placed in
 * the formula for a clipped-surrogate estimator and for REINFORCE++ (KL in
 * the reward). The store hook is replaced by a fixed state.
 */
import { describe, expect, it, vi } from "vitest";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { emptyMetrics, initialRunData } from "../../src/store/run-data";
import { appendMetrics } from "../../src/store/run-data";
import { checkRecording } from "../../src/store/saved-run-check";
import { ROLLOUT_CLASSES } from "../../src/settings/credit-table";
import type { MetricRow } from "../../src/run/run-types";
import type { TokenWeightsAnswer } from "../../src/store/token-weights";
import { presetExperiment } from "../../src/settings/presets";

const state: Record<string, unknown> = {
  ...initialRunData(),
  experiment: presetExperiment("default"),
  sentExperiment: null,
  trainer: null,
  presentation: false,
  playback: { step: 0 },
  noTraining: true,
  viewingRun: null,
  runs: [],
};
vi.mock("../../src/store", () => ({
  useLab: (sel: (s: unknown) => unknown) => sel(state),
  labStore: { getState: () => state, subscribe: () => () => {} },
}));
const { CreditChart } = await import("../../src/ui/components/charts/CreditChart");
const { CreditPanel } = await import("../../src/ui/components/charts/CreditPanel");
const { ObjectiveTerms } = await import("../../src/ui/components/inspector/ObjectiveTerms");
const { buildCreditLines } = await import("../../src/ui/lib/credit-data");

function row(variant: string, step: number, flawed: number): MetricRow {
  const values: Record<string, number> = {};
  for (const c of ROLLOUT_CLASSES) {
    const share = c.key === "faithful-right" ? 0.5 : c.key === "flawed-right" ? flawed : 0;
    values[`credit/${c.key}/share`] = share;
    values[`credit/${c.key}/reward`] = share > 0 ? 1 : Number.NaN;
    values[`credit/${c.key}/advantage`] = share > 0 ? 0.3 : Number.NaN;
  }
  return { variant, step, time: step, kind: "train", values };
}

describe("credit chart", () => {
  it("has one line per variant and class that occurred, and a legend naming each class with its definition", () => {
    const rows = { rlvr: [row("rlvr", 1, 0.25)], scs: [row("scs", 1, 0)] };
    const html = renderToStaticMarkup(
      createElement(CreditChart, {
        lines: buildCreditLines(rows, ROLLOUT_CLASSES, "advantage"),
        classes: ROLLOUT_CLASSES,
        variants: ["rlvr", "scs"],
        measure: "advantage",
      }),
    );
    expect(html).toContain('data-lines="3"');
    expect(html).toContain('data-line-rlvr-flawed-right="1"');
    expect(html).not.toContain("data-line-scs-flawed-right");
    for (const c of ROLLOUT_CLASSES) {
      expect(html).toContain(`data-class="${c.key}"`);
      expect(html).toContain(
        c.definition.replace(/'/g, "&#x27;").replace(/</g, "&lt;").replace(/>/g, "&gt;"),
      );
    }
    // Share of rollouts: every class of every variant has a point (0 is a share, not an empty class).
    const share = renderToStaticMarkup(
      createElement(CreditChart, {
        lines: buildCreditLines(rows, ROLLOUT_CLASSES, "share"),
        classes: ROLLOUT_CLASSES,
        variants: ["rlvr", "scs"],
        measure: "share",
      }),
    );
    expect(share).toContain(`data-lines="${2 * ROLLOUT_CLASSES.length}"`);
  });

  it("draws the shipped scs-faint recording's credit values; says so for a recording made before them", () => {
    const rec = checkRecording(
      JSON.parse(
        readFileSync(
          resolve(import.meta.dirname, "../../public/recordings/scs-faint.json"),
          "utf8",
        ),
      ),
      "scs-faint",
    );
    state.experiment = rec.run.experiment;
    state.metrics = rec.run.metrics;
    const shipped = renderToStaticMarkup(createElement(CreditPanel));
    expect(shipped).toContain('data-testid="credit-chart"');
    // A point at each of the 20 steps (every step of both arms had a right answer with flawed steps).
    expect(shipped).toContain('data-line-scs-flawed-right="20"');
    expect(shipped).toContain('data-line-scs-baseline-flawed-right="20"');
    // A file written before 2026-12-06 names the class credit/lucky-guess/*: the same
    // acre-paper rows under that name draw as flawed-right, a point at each step that had
    // such a rollout (7 of RLVR's 20, 11 of ACRE's), as the current file does.
    const acreText = readFileSync(
      resolve(import.meta.dirname, "../../public/recordings/acre-paper.json"),
      "utf8",
    );
    expect(acreText).not.toContain("credit/lucky-guess/");
    for (const text of [
      acreText,
      acreText.replaceAll("credit/flawed-right/", "credit/lucky-guess/"),
    ]) {
      const acre = checkRecording(JSON.parse(text), "acre-paper");
      state.experiment = acre.run.experiment;
      state.metrics = acre.run.metrics;
      const older = renderToStaticMarkup(createElement(CreditPanel));
      expect(older).toContain('data-line-acre-flawed-right="11"');
      expect(older).toContain('data-line-rlvr-flawed-right="7"');
      expect(older).not.toContain("lucky-guess");
    }
    state.experiment = rec.run.experiment;
    state.metrics = rec.run.metrics;
    expect(shipped).not.toContain("lucky-guess");
    expect(shipped).not.toContain('data-testid="credit-missing"');
    // The panel says it is the mechanism, read first.
    expect(shipped).toContain('data-testid="credit-role"');
    expect(shipped).toContain("mechanism · read this first");
    // The same rows without their credit keys: a recording made before them.
    const before = structuredClone(rec.run.metrics);
    for (const rows of Object.values(before.byVariant))
      for (const r of rows.train)
        for (const k of Object.keys(r.values)) if (k.startsWith("credit/")) delete r.values[k];
    state.metrics = before;
    const html = renderToStaticMarkup(createElement(CreditPanel));
    expect(html).toContain('data-testid="credit-missing"');
    expect(html).toContain("This recording was made before");
    // Credit rows of two variants, three lines (faithful right twice, one flawed right).
    state.experiment = presetExperiment("default");
    state.metrics = appendMetrics(emptyMetrics(), [row("rlvr", 1, 0.25), row("grr", 1, 0)]);
    const drawn = renderToStaticMarkup(createElement(CreditPanel));
    expect(drawn).toContain('data-testid="credit-chart"');
    expect(drawn).toContain('data-lines="3"');
  });
});

const rollout = {
  tokens: ["<think>", "Step", "1:", "4"],
  logprob: [-0.1, -0.2, -0.3, -0.4],
  refLogprob: [-0.15, -0.2, -0.35, -0.5],
  ratio: [1, 1.25, 0.9, 1],
  advantage: 0.41,
  pgCoef: [0.1025, 0, 0.1025, 0.1025],
  klCoef: [-0.0001, 0, -0.0002, -0.0003],
  coef: [0.1024, 0, 0.1023, 0.1022],
  clipped: [false, true, false, false],
};

describe("objective terms", () => {
  it("places the token's ratio, advantage, KL argument and weights in the clipped objective", () => {
    const answer: TokenWeightsAnswer = {
      type: "tokenWeights",
      variant: "grr",
      step: 1,
      promptId: "p1",
      estimator: "grpo",
      beta: 0.01,
      clipEps: 0.2,
      rollouts: [rollout],
    };
    const html = renderToStaticMarkup(
      createElement(ObjectiveTerms, { answer, index: 0, token: 1 }),
    );
    expect(html).toContain("1.2500"); // ρ
    expect(html).toContain("clip range [0.80, 1.20]: clipped");
    expect(html).toContain("+0.4100"); // A
    expect(html).toContain("+0.0000"); // x = −0.2 − (−0.2)
    expect(html).toContain("β = 0.01");
    expect(html).toContain("+ β·KL");
    expect(html).toContain("untouched");
    const t3 = renderToStaticMarkup(createElement(ObjectiveTerms, { answer, index: 0, token: 3 }));
    expect(t3).toContain("−0.1000"); // x = −0.5 − (−0.4)
    expect(t3).toContain("+0.1022"); // the update's weight
    expect(t3).toContain("reinforced");
  });

  it("has no KL term for REINFORCE++, whose KL is folded into the reward", () => {
    const answer: TokenWeightsAnswer = {
      type: "tokenWeights",
      variant: "scs",
      step: 1,
      promptId: "p1",
      estimator: "reinforce++",
      beta: 0.001,
      clipEps: 0.2,
      rollouts: [rollout],
    };
    const html = renderToStaticMarkup(
      createElement(ObjectiveTerms, { answer, index: 0, token: 0 }),
    );
    expect(html).toContain("KL folded into the reward");
    expect(html).not.toContain("+ β·KL");
    expect(html).not.toContain("x = logπ_ref − logπ");
  });
});
