/**
 * The layer rule (docs/design.md, "Layers"; .dependency-cruiser.cjs): the
 * tree keeps it, and an import that runs back up a floor, a type import
 * included, is refused naming the rule and both files.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = resolve(__dirname, "../..");
const cli = join(root, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");
const config = join(root, ".dependency-cruiser.cjs");

function cruise(cwd: string): { code: number; out: string } {
  try {
    const out = execFileSync(process.execPath, [cli, "--config", config, "src"], {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    return { code: 0, out };
  } catch (e) {
    const err = e as { status: number; stdout: string; stderr: string };
    return { code: err.status, out: `${err.stdout}${err.stderr}` };
  }
}

const tmp = mkdtempSync(join(tmpdir(), "layers-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmp, "t-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe("layer rule", () => {
  it("holds on the tree as it is", () => {
    const r = cruise(root);
    expect(r.out).toContain("no dependency violations found");
    expect(r.code).toBe(0);
  }, 60_000);

  it("refuses a type import from a lower floor to a higher one, naming the rule and both files", () => {
    const dir = tree({
      "src/run/run-types.ts": "export interface MetricRow { step: number }\n",
      "src/rewards/rng.ts":
        'import type { MetricRow } from "../run/run-types";\nexport const first = (r: MetricRow) => r.step;\n',
    });
    const r = cruise(dir);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain("layer-rewards: src/rewards/rng.ts → src/run/run-types.ts");
  }, 60_000);

  it("refuses an import between two folders of one floor, and lets a higher floor import a lower one", () => {
    const dir = tree({
      "src/engine/a.ts": 'import { b } from "../onnx/b";\nexport const a = b;\n',
      "src/onnx/b.ts": "export const b = 1;\n",
      "src/ui/c.ts": 'import { d } from "../tasks/d";\nexport const c = d;\n',
      "src/tasks/d.ts": "export const d = 2;\n",
    });
    const r = cruise(dir);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain("layer-engine: src/engine/a.ts → src/onnx/b.ts");
    expect(r.out).not.toContain("src/ui/c.ts →");
  }, 60_000);
});
