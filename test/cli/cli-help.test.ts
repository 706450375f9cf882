// The CLIs' flag tables: every CLI answers --help with every flag of its
// table (meaning, default, range) and exits 0; the parser checks a value once,
// against the table, with errors that name the flag; docs/cli.md's flag
// reference is the tables' (npm run docs:cli).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI_TABLES, withFlagReference } from "../../src/cli/cli-tables";
import { LAB_TABLE } from "../../src/cli/lab-flags";
import { RECORD_TABLE } from "../../src/cli/record-flags";
import { EXPORT_ONNX_TABLE } from "../../src/cli/export-flags";
import { RESAVE_CHECKPOINTS_TABLE } from "../../src/cli/script-flags";
import { parseCli } from "../../src/lib/cli-flags";
import { defaultText, rangeText } from "../../src/lib/cli-table";
import { helpText } from "../../src/lib/cli-help";

const REPO_ROOT = resolve(import.meta.dirname, "../..");

describe("--help from the table", () => {
  it.each(CLI_TABLES.map((c) => [c.entry, c.table] as const))(
    "%s lists every flag with its meaning, default and range",
    (_entry, table) => {
      const lines = helpText(table).split("\n");
      for (const [name, s] of Object.entries(table.flags)) {
        const line = lines.find((l) => l.startsWith(`  --${name} `) || l === `  --${name}`);
        expect(line, `--${name}`).toBeDefined();
        expect(line).toContain(s.help);
        expect(line).toContain(`Default: ${defaultText(s)}.`);
        if (rangeText(s)) expect(line).toContain(`Range: ${rangeText(s)}.`);
      }
      for (const p of table.positionals ?? [])
        expect(lines.some((l) => l.startsWith(`  ${p.name}`) && l.includes(p.help))).toBe(true);
      expect(lines.at(-2)).toMatch(/^ {2}-h, --help +print this help and exit$/);
    },
  );

  it("lab's defaults and ranges, worked by hand", () => {
    const f = LAB_TABLE.flags;
    expect(defaultText(f.preset)).toBe("smoke");
    expect(rangeText(f.lr)).toBe("number in (0, 1] (experiment algorithm.lr)");
    expect(rangeText(f["group-size"])).toBe("integer in [1, 64] (experiment algorithm.groupSize)");
    expect(rangeText(f["slip-box"])).toBe("one of answer, hint, step");
    expect(defaultText(f["max-hours"])).toBe("24");
    expect(rangeText(f["max-hours"])).toBe("number in (0, 1000]");
    expect(defaultText(f.quiet)).toBe("off");
    expect(rangeText(RECORD_TABLE.flags["max-groups"])).toBe("integer in [1, 2000]");
  });

  it("every entry answers --help and -h with its table's help and exit code 0", () => {
    for (const { entry, table } of CLI_TABLES) {
      const flag = entry.endsWith("lab.ts") ? "-h" : "--help";
      const r = spawnSync(
        process.execPath,
        ["--import", "tsx", "--import", "./scripts/register-raw.mjs", entry, flag],
        { cwd: REPO_ROOT, encoding: "utf8", timeout: 120_000 },
      );
      expect(r.status, `${entry}: ${r.stderr}`).toBe(0);
      expect(r.stdout).toBe(helpText(table));
    }
    // The benchmarks' tables go through the same parser (scripts/bench/harness.ts).
    const bench = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "--import",
        "./scripts/register-raw.mjs",
        "scripts/bench/rl.ts",
        "--help",
      ],
      { cwd: REPO_ROOT, encoding: "utf8", timeout: 120_000 },
    );
    expect(bench.status, bench.stderr).toBe(0);
    expect(bench.stdout).toMatch(/^usage: npm run bench:rl -- /);
    expect(bench.stdout).toMatch(/\n {2}--steps N +.*Default: \d+\. Range: integer in \[/);
  }, 900_000);
});

describe("parseCli", () => {
  const lab = (...argv: string[]) => {
    const r = parseCli(argv, LAB_TABLE);
    if (r === "help") throw new Error("help");
    return r;
  };

  it("reads every kind, fills in the defaults and lists what was given", () => {
    const r = lab(
      "--lr",
      "-0.5",
      "--set",
      "grr.lambda=0.5",
      "--set=scs.k=2",
      "--quiet",
      "--steps=3",
    );
    // The experiment schema, not the parser, refuses lr -0.5 (it names --lr then).
    expect(r.flags).toMatchObject({
      lr: -0.5,
      steps: 3,
      quiet: true,
      preset: "smoke",
      "max-hours": 24,
    });
    expect(r.flags.set).toEqual(["grr.lambda=0.5", "scs.k=2"]);
    expect(r.flags.seed).toBeUndefined();
    expect(r.flags["dry-run"]).toBe(false);
    expect(r.given).toEqual(["lr", "set", "quiet", "steps"]);
    expect(parseCli(["--steps", "3", "--help"], LAB_TABLE)).toBe("help");
  });

  it.each([
    [
      ["--bogus"],
      /^unknown option --bogus; known: --preset --steps .* --quiet \(--help explains each\)$/,
    ],
    [
      ["--preset", "nope"],
      /^--preset must be one of default, drift, .*smoke \(the experiment to start from .*\), got 'nope'$/,
    ],
    [
      ["--lr", "fast"],
      /^--lr must be a number in \(0, 1\] \(experiment algorithm\.lr\) \(RL learning rate \(AdamW\)\), got 'fast'$/,
    ],
    [["--max-hours", "0"], /^--max-hours must be a number in \(0, 1000\] \(.*\), got '0'$/],
    [["--steps"], /^--steps needs a value \(RL steps\)$/],
    [["--out", "--quiet"], /^--out needs a value/],
    [["--quiet=yes"], /^--quiet takes no value/],
    [["--seed", "1", "--seed", "2"], /^--seed is given twice$/],
    [["extra"], /^unexpected argument 'extra': this command takes flags only/],
  ])("lab %j: %s", (argv, message) => {
    expect(() => lab(...argv)).toThrow(message);
  });

  it("required flags and positionals", () => {
    expect(() => parseCli([], RECORD_TABLE)).toThrow(
      /^--preset is required; known: default, drift/,
    );
    expect(() => parseCli(["--preset", "smoke", "--max-groups", "0"], RECORD_TABLE)).toThrow(
      "--max-groups must be an integer in [1, 2000] (inspector groups kept (the first seed's)), got '0'",
    );
    expect(() => parseCli(["a.ckpt"], EXPORT_ONNX_TABLE)).toThrow(
      /^OUT\.onnx is missing \(the ONNX file to write\); usage: npm run export:onnx -- CHECKPOINT OUT\.onnx$/,
    );
    expect(() => parseCli(["a", "b", "c"], EXPORT_ONNX_TABLE)).toThrow(
      /^unexpected argument 'c': it takes CHECKPOINT OUT\.onnx/,
    );
    expect(parseCli(["a", "b", "c"], RESAVE_CHECKPOINTS_TABLE)).toMatchObject({
      positionals: ["a", "b", "c"],
    });
  });
});

describe("docs/cli.md", () => {
  it("holds the flag reference the tables give (npm run docs:cli writes it)", () => {
    const doc = readFileSync(resolve(REPO_ROOT, "docs/cli.md"), "utf8");
    expect(doc).toBe(withFlagReference(doc));
    for (const { table } of CLI_TABLES)
      for (const name of Object.keys(table.flags)) expect(doc).toContain(`\`--${name}`);
  });
});
