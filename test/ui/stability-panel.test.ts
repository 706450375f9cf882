/**
 * The Judge stability panel rendered to HTML (react-dom/server, no browser):
 * the no-run message, and a result as a table (the chart needs a DOM to size).
 * The store hook is replaced by a fixed state.
 */
import { describe, expect, it, vi } from "vitest";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { initialRunData } from "../../src/store/run-data";
import type { StabilityReport } from "../../src/experiments/stability-study";

const state: Record<string, unknown> = { ...initialRunData(), sentExperiment: null, trainer: null };
vi.mock("../../src/store", () => ({
  useLab: (sel: (s: unknown) => unknown) => sel(state),
  labStore: { getState: () => state },
}));
const { StabilityPanel } = await import("../../src/ui/components/StabilityPanel");

const report: StabilityReport = {
  prompts: 16,
  groupSize: 8,
  repeats: 4,
  seed: 1,
  policy: "grr",
  step: 12,
  temperature: 1,
  passRate: 0.65,
  settings: [
    {
      label: "lab default",
      judge: { name: "oracle-auditor", sigmaJ: 0.05, sigmaB: 0.1, delta: 0.15 },
      pointwise: 0.0057,
      groupwise: 0.0065,
      reduction: -0.143,
      rollouts: 128,
      repeats: 4,
    },
    {
      label: "σ_j = 0",
      judge: { name: "oracle-auditor", sigmaJ: 0, sigmaB: 0.1, delta: 0.15 },
      pointwise: 0.0044,
      groupwise: 0,
      reduction: 1,
      rollouts: 128,
      repeats: 4,
    },
  ],
};

describe("StabilityPanel", () => {
  it("says so when no run is loaded yet, and offers no button", () => {
    const html = renderToStaticMarkup(createElement(StabilityPanel));
    expect(html).toContain("No run is loaded yet");
    expect(html).not.toContain("stability-run");
  });

  it("shows each setting's variances and the reduction once a result is in", () => {
    Object.assign(state, {
      ready: { adapter: "x", isFallback: true, modelSize: "small", params: 1 },
      phase: "paused",
      step: 12,
      sentExperiment: { variants: [{ name: "rlvr" }, { name: "grr" }] },
      stability: { result: report, error: null, version: 1 },
    });
    const html = renderToStaticMarkup(createElement(StabilityPanel));
    expect(html).toContain("Measure judge stability");
    expect(html).toContain("GRR at step 12");
    expect(html).toContain("65.0 %");
    expect(html).toMatch(
      /<td>lab default<\/td><td>0.05<\/td><td>0.1<\/td><td>0.15<\/td><td>0.0057<\/td><td>0.0065<\/td><td[^>]*>-14.3 %<\/td>/,
    );
    expect(html).toMatch(/<td>σ_j = 0<\/td>.*<td>0<\/td><td[^>]*>100.0 %<\/td>/);
  });

  it("shows the worker's reason when the study could not run", () => {
    Object.assign(state, {
      stability: { result: null, error: "This run has no cold start yet", version: 2 },
    });
    const html = renderToStaticMarkup(createElement(StabilityPanel));
    expect(html).toContain("Could not measure: This run has no cold start yet");
  });
});
