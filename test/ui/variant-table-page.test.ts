/**
 * The page's variant list and cards come from the variant table: the
 * checkboxes are the table's names in table order, and every card shows its
 * entry's label, formula, source and one control per weight (plus the judge
 * sliders when it calls a judge). Rendered to HTML with react-dom/server; the
 * store hook is replaced by a fixed state that trains every variant.
 */
import { describe, expect, it, vi } from "vitest";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { parseExperiment } from "../../src/settings/experiment";
import { ESTIMATOR_NAMES } from "../../src/settings/estimator-table";
import { JUDGE_FIELDS, VARIANT_NAMES, VARIANT_TABLE } from "../../src/settings/variant-table";

// Multiple choice: ACRE re-asks with the options shuffled, so the whole table trains only there.
const experiment = parseExperiment({
  task: { multipleChoice: true },
  variants: VARIANT_NAMES.map((name) => ({ name })),
});
const state: Record<string, unknown> = {
  experiment,
  sentExperiment: null,
  ready: null,
  phase: "idle",
  step: 0,
};
vi.mock("../../src/store", () => ({
  useLab: (sel: (s: unknown) => unknown) => sel(state),
  labStore: { getState: () => state },
}));
const { VariantsSection } = await import("../../src/ui/components/experiment/VariantsSection");
const { AlgorithmSection } = await import("../../src/ui/components/experiment/AlgorithmSection");

/** Decodes the few entities react-dom escapes in text and attributes. */
function decodeEntities(html: string): string {
  return html
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

describe("variant list and cards on the page", () => {
  const html = decodeEntities(renderToStaticMarkup(createElement(VariantsSection)));

  it("lists exactly the table's variants, in table order", () => {
    const listed = [...html.matchAll(/data-variant="([^"]+)"/g)].map((m) => m[1]);
    expect(listed).toEqual([...VARIANT_NAMES]);
  });

  for (const entry of VARIANT_TABLE) {
    it(`shows ${entry.name}'s label, formula, source and controls`, () => {
      const start = html.indexOf(`data-testid="variant-${entry.name}"`);
      expect(start).toBeGreaterThan(0);
      const next = VARIANT_TABLE.map((v) => html.indexOf(`data-testid="variant-${v.name}"`))
        .filter((i) => i > start)
        .sort((a, b) => a - b)[0];
      const card = html.slice(start, next ?? html.length);
      expect(card).toContain(entry.label);
      for (const line of entry.formula) expect(card).toContain(line);
      expect(card).toContain(entry.source.where);
      for (const [k, w] of Object.entries(entry.weightInfo))
        expect(card, k).toContain(
          w.kind === "number" ? `aria-label="${entry.name} ${w.label}"` : `${entry.name} ${k}`,
        );
      for (const f of Object.values(JUDGE_FIELDS))
        expect(card.includes(`aria-label="${entry.name} ${f.short}"`)).toBe(entry.judge !== "none");
    });
  }
});

describe("estimator list on the page", () => {
  it("offers every estimator of the table", () => {
    const html = decodeEntities(renderToStaticMarkup(createElement(AlgorithmSection)));
    const values = [...html.matchAll(/<option value="([^"]*)"/g)].map((m) => m[1]);
    for (const name of ESTIMATOR_NAMES) expect(values).toContain(name);
  });
});
