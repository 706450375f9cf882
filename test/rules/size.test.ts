/**
 * File size and README length (docs/design.md, "File size"): the limits are
 * read from the doc's list, every `.ts`/`.tsx` file under src/ and the README
 * are counted, and each file over its limit is named.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { limitOf, lineCount, oversized, parseSizeRules } from "./size-rules";

const root = resolve(__dirname, "../..");
const doc = readFileSync(join(root, "docs/design.md"), "utf8");

/** Every .ts/.tsx file under `dir` (relative to the root, `/`-separated). */
function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...sources(path));
    else if (/\.tsx?$/.test(e.name)) out.push(path);
  }
  return out;
}

describe("size rules of docs/design.md", () => {
  it("reads the limits the doc states", () => {
    expect(parseSizeRules(doc)).toEqual([
      { pattern: "src/**/*.ts", limit: 600 },
      { pattern: "src/**/*.tsx", limit: 600 },
      { pattern: "src/settings/variant-table.ts", limit: 1000 },
      { pattern: "src/settings/metric-table.ts", limit: 1000 },
      { pattern: "README.md", limit: 250 },
    ]);
  });

  it("gives each file its limit: the named exception over the pattern, none outside the rules", () => {
    const rules = parseSizeRules(doc);
    expect(limitOf(rules, "src/run/lab-run.ts")).toBe(600);
    expect(limitOf(rules, "src/ui/components/charts/MetricChart.tsx")).toBe(600);
    expect(limitOf(rules, "src/main.tsx")).toBe(600);
    expect(limitOf(rules, "src/settings/variant-table.ts")).toBe(1000);
    expect(limitOf(rules, "src/settings/metric-table.ts")).toBe(1000);
    expect(limitOf(rules, "README.md")).toBe(250);
    expect(limitOf(rules, "docs/README.md")).toBeNull();
    expect(limitOf(rules, "test/rules/size.test.ts")).toBeNull();
    expect(limitOf(rules, "src/run/lab-run.tsx.bak")).toBeNull();
  });

  it("counts lines as wc -l and names each file at or over its limit", () => {
    expect(lineCount("")).toBe(0);
    expect(lineCount("a")).toBe(0);
    expect(lineCount("a\nb\n")).toBe(2);
    expect(lineCount("\n\n\n")).toBe(3);
    const rules = parseSizeRules(doc);
    const files = new Map([
      ["src/a/x.ts", 599],
      ["src/a/y.tsx", 600],
      ["src/settings/metric-table.ts", 999],
      ["src/settings/variant-table.ts", 1005],
      ["README.md", 251],
      ["docs/benchmarks.md", 5000],
    ]);
    expect(oversized(rules, files)).toEqual([
      "src/a/y.tsx: 600 lines, the limit is under 600 (docs/design.md, File size)",
      "src/settings/variant-table.ts: 1005 lines, the limit is under 1000 (docs/design.md, File size)",
      "README.md: 251 lines, the limit is under 250 (docs/design.md, File size)",
    ]);
  });

  it("refuses a missing list or an item it cannot read, naming the doc", () => {
    expect(() => parseSizeRules("# no list\n")).toThrow(/^docs\/design\.md: no '<!-- sizes/);
    const bad =
      "<!-- sizes: lines a file stays under -->\n- `src/**/*.ts`: six hundred\n<!-- /sizes -->";
    expect(() => parseSizeRules(bad)).toThrow("size item '- `src/**/*.ts`: six hundred'");
    const zero = "<!-- sizes: lines a file stays under -->\n- `README.md`: 0\n<!-- /sizes -->";
    expect(() => parseSizeRules(zero)).toThrow("size item '- `README.md`: 0'");
    const none = "<!-- sizes: lines a file stays under -->\nprose\n<!-- /sizes -->";
    expect(() => parseSizeRules(none)).toThrow("the sizes list has no item");
  });
});

describe("the tree keeps its size limits", () => {
  it("has every file under src/ and the README under its limit", () => {
    const rules = parseSizeRules(doc);
    const files = new Map<string, number>();
    for (const path of [...sources("src"), "README.md"])
      files.set(path, lineCount(readFileSync(join(root, path), "utf8")));
    expect(files.size).toBeGreaterThan(100);
    expect(oversized(rules, files)).toEqual([]);
  });
});
