/**
 * Reward-library benchmark: rollouts per second for each reward on groups of
 * 8 realistic traces, parser throughput, the time of the large /
 * pathological case vectors against the budgets in their notes, and the
 * learned PRM's cost per RL step (scripts/bench/prm.ts, 1, 2 and 4 threads).
 *
 *   npm run bench:rewards -- [--repeats R]   (single thread = one core)
 *
 * Each rate is rollouts per CPU-second over a window of ≥ 600 ms of this
 * process's CPU time after one warm-up pass over the prompts; --repeats R
 * (default 1) measures R windows and reports their median and spread. The
 * table goes to stderr; the JSON line at the end has every row:
 * rollouts_per_s {name: {median, min, max, spread, runs}, target, rule},
 * vectors [{id, ms_best_of_5, budget_ms, ok}], prm [{threads, steps, msMedian,
 * msMin}].
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { TaskPrompt } from "../../src/tasks/types";
import {
  acreConsistency,
  answersEquivalent,
  createAuditorJudge,
  extractBoxed,
  extractOptionLetter,
  mulberry32,
  parseJudgeRanking,
  parseTrace,
  scoreACRE,
  scoreGRR,
  scorePointwiseGR,
  scoreRLVR,
  scoreSCS,
  scoreStructReward,
  shuffleOptions,
} from "../../src/rewards/index";
import { groupAdvantages } from "../../src/kernels/advantages/reference";
import { parseBenchFlags, runBench, summarize, type Timing } from "./harness";

const ORD = ["first", "second", "third"];

function prompt(digits: number[], id: number): TaskPrompt {
  const sum = digits.reduce((a, b) => a + b, 0);
  const referenceSteps = digits.map((d, i) => ({
    text: `${ORD[i]} digit = \\boxed{${d}}`,
    value: String(d),
  }));
  referenceSteps.push({ text: `${digits.join(" + ")} = \\boxed{${sum}}`, value: String(sum) });
  return {
    id: `bench/${id}`,
    family: "digits",
    image: new Float32Array(1),
    height: 1,
    width: 1,
    channels: 1,
    question: "What is the sum of the digits ?",
    options: { A: String(sum - 1), B: String(sum), C: String(sum + 1), D: String(sum + 2) },
    answer: { letter: "B", content: String(sum) },
    referenceSteps,
    sftTarget: "",
  };
}

function rollout(p: TaskPrompt, rng: () => number): string {
  const digits = p.referenceSteps.slice(0, -1).map((s) => Number(s.value));
  const read = digits.map((d) => (rng() < 0.2 ? (d + 1) % 10 : d));
  let sum = read.reduce((a, b) => a + b, 0);
  if (rng() < 0.1) sum += 1;
  const letter =
    Object.keys(p.options!).find((k) => p.options![k] === String(sum)) ??
    "ABCD"[Math.floor(rng() * 4)];
  const steps = read.map((d, i) => `Step ${i + 1}: ${ORD[i]} digit = \\boxed{${d}}`);
  steps.push(`Step ${read.length + 1}: ${read.join(" + ")} = \\boxed{${sum}}`);
  const text = `<think> ${steps.join(" ")} </think> \\boxed{${rng() < 0.1 ? "C" : letter}}`;
  return rng() < 0.03 ? text.slice(0, Math.floor(text.length * 0.7)) : text;
}

const rng = mulberry32(1);
const PROMPTS = 256;
const G = 8;
const prompts = Array.from({ length: PROMPTS }, (_, i) =>
  prompt(
    Array.from({ length: 2 + (i % 2) }, () => Math.floor(rng() * 10)),
    i,
  ),
);
const groups = prompts.map((p) => Array.from({ length: G }, () => rollout(p, rng)));
const allTexts = groups.flat();

/** Windows per rate (--repeats). */
let REPEATS = 1;

/**
 * Runs `body` (one group of G rollouts) over the groups for ≥ minMs of CPU
 * time, REPEATS times after one warm-up pass, and returns rollouts per
 * CPU-second of this process (i.e. per core) of each window, summarized.
 * CPU time rather than wall time, because the machine may be shared.
 */
function rate(body: (p: TaskPrompt, texts: string[], k: number) => void, minMs = 600): Timing {
  for (let warm = 0; warm < PROMPTS; warm++) body(prompts[warm], groups[warm], warm);
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const rates: number[] = [];
  let k = 0;
  for (let w = 0; w < REPEATS; w++) {
    let rollouts = 0;
    const start = cpuMs();
    while (cpuMs() - start < minMs) {
      for (let j = 0; j < 16; j++, k++) {
        const i = k % PROMPTS;
        body(prompts[i], groups[i], k);
        rollouts += G;
      }
    }
    rates.push(rollouts / ((cpuMs() - start) / 1000));
  }
  return summarize(rates);
}

/** The table: stderr, as the progress of every benchmark. */
const say = (line: string) => process.stderr.write(`${line}\n`);

const judge = createAuditorJudge();
const judgeRng = mulberry32(2);
const continuations = groups.map((g) =>
  g.map(() => [
    "<think> a </think> <answer>B</answer>",
    "<think> a </think> <answer>7</answer>",
    "<think> a </think> <answer>C</answer>",
    "<think> a </think> <answer>B</answer>",
  ]),
);
const secondOptions = prompts.map((p) => shuffleOptions(p.options!, judgeRng));
const second = groups.map((g, i) => ({
  texts: g.map(() => "<think> x </think> \\boxed{A}"),
  options: g.map(() => secondOptions[i]),
}));

/** A rate measured on groups of 8 for a batch of 64 groups: every figure × 64. */
function per64(t: Timing): Timing {
  return { ...t, median: t.median * 64, min: t.min * 64, max: t.max * 64, spread: t.spread * 64 };
}

runBench("bench-rewards", async () => {
  REPEATS = parseBenchFlags(process.argv.slice(2), {
    repeats: { kind: "int", min: 1, max: 20, default: 1, help: "CPU-time windows per rate" },
  }).repeats;
  const TARGET = 20000;
  const rows: [string, Timing, boolean][] = [];
  const rule = (name: string, r: Timing) => rows.push([name, r, true]);
  const other = (name: string, r: Timing) => rows.push([name, r, false]);

  rule(
    "RLVR verifier (parse + r_ver)",
    rate((p, t) => scoreRLVR(p, t)),
  );
  rule(
    "StructReward",
    rate((p, t) => scoreStructReward(p, t)),
  );
  rule(
    "SCS (rollout + 4 continuations)",
    rate((p, t, k) => scoreSCS(p, t, continuations[k % PROMPTS])),
  );
  rule(
    "ACRE (rollout + second pass)",
    rate((p, t, k) => scoreACRE(p, t, second[k % PROMPTS])),
  );
  other(
    "GRR + rubric auditor (1 call/group)",
    rate((p, t) => scoreGRR(p, t, { judge }, judgeRng)),
  );
  other(
    "pointwise GR + rubric auditor (8 calls)",
    rate((p, t) => scorePointwiseGR(p, t, { judge }, judgeRng)),
  );
  rule(
    "parseTrace",
    rate((_p, t) =>
      t.forEach((text) => {
        parseTrace({ text });
      }),
    ),
  );
  rule(
    "extractBoxed",
    rate((_p, t) =>
      t.forEach((text) => {
        extractBoxed({ text });
      }),
    ),
  );
  rule(
    "extractOptionLetter",
    rate((_p, t) =>
      t.forEach((text) => {
        extractOptionLetter({ text });
      }),
    ),
  );
  rule(
    "answersEquivalent (letter vs gold, options)",
    rate((p, t) =>
      t.forEach((text) => {
        answersEquivalent({ predicted: text.slice(-2, -1), gold: "B", options: p.options });
      }),
    ),
  );
  rule(
    "acreConsistency",
    rate(() => {
      for (let i = 0; i < G; i++)
        acreConsistency({ first: "7", second: "\\frac{14}{2}", gold: "7" });
    }),
  );
  const reply = JSON.stringify({
    solutions: Array.from({ length: 8 }, (_, i) => ({
      index: i + 1,
      rank: 1 + (i % 3),
      justification: "fine",
    })),
  });
  const fenced = `Here you go:\n\`\`\`json\n${reply.replace(/\}\]/, "},]")}\n\`\`\``;
  other(
    "parseJudgeRanking strict (rollouts/s, 1 reply per 8)",
    rate(() => parseJudgeRanking({ text: reply, numCandidates: 8 })),
  );
  other(
    "parseJudgeRanking repaired (rollouts/s, 1 reply per 8)",
    rate(() => parseJudgeRanking({ text: fenced, numCandidates: 8 })),
  );
  const advRewards = Array.from({ length: 8 * 64 }, () => rng());
  other(
    "groupAdvantages grpo (batch 512, rollouts/s)",
    per64(rate(() => groupAdvantages({ rewards: advRewards, groupSize: 8, estimator: "grpo" }))),
  );

  say(
    `Reward-library benchmark, ${PROMPTS} prompts × G = ${G}, single thread, per CPU-second (${process.version})`,
  );
  say(
    `Corpus: ${allTexts.length} rollouts, mean ${Math.round(allTexts.reduce((a, t) => a + t.length, 0) / allTexts.length)} chars`,
  );
  say("");
  say(`${"reward / function".padEnd(56) + "rollouts/s".padStart(14)}  target`);
  for (const [name, t, isRule] of rows) {
    const r = t.median;
    const verdict = isRule ? (r >= TARGET ? `ok (>= ${TARGET})` : `BELOW ${TARGET}`) : "-";
    say(`${name.padEnd(56) + Math.round(r).toLocaleString("en-US").padStart(14)}  ${verdict}`);
  }

  // Large / pathological vectors against their budgets.
  const here = path.dirname(fileURLToPath(import.meta.url));
  const vectorsPath = path.resolve(here, "../..", "test/fixtures/vectors.json");
  interface Vec {
    id: string;
    fn: string;
    input: Record<string, unknown>;
    note: string;
  }
  let vectors: Vec[] = [];
  try {
    vectors = JSON.parse(readFileSync(vectorsPath, "utf8"));
  } catch {
    say(`\n(no vectors at ${vectorsPath})`);
  }
  // biome-ignore lint/suspicious/noExplicitAny: each case's input is the function's own argument shape
  const FNS: Record<string, (a: any) => unknown> = {
    extractBoxed,
    parseTrace,
    extractOptionLetter,
    answersEquivalent,
    groupAdvantages,
    parseJudgeRanking,
  };
  const timedVectors = vectors.filter((v) => v.input.textTemplate || /\d+\s*ms/.test(v.note));
  const vectorRows: {
    id: string;
    ms_best_of_5: number;
    budget_ms: number | null;
    ok: boolean | null;
  }[] = [];
  if (timedVectors.length > 0) {
    say(`${"\nlarge / pathological vectors".padEnd(56) + "ms (best of 5)".padStart(14)}  budget`);
    for (const v of timedVectors) {
      const args: Record<string, unknown> = { ...v.input };
      const tpl = args.textTemplate as
        | { prefix: string; repeat: string; times: number; suffix: string }
        | undefined;
      if (tpl) {
        delete args.textTemplate;
        args.text = tpl.prefix + tpl.repeat.repeat(tpl.times) + tpl.suffix;
      }
      let best = Infinity;
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        FNS[v.fn](args);
        best = Math.min(best, performance.now() - t);
      }
      const budget = /<\s*(\d+)\s*ms|within\s*(\d+)\s*ms/.exec(v.note);
      const limit = budget ? Number(budget[1] ?? budget[2]) : null;
      const verdict =
        limit === null ? "(none stated)" : best < limit ? `ok (< ${limit} ms)` : `OVER ${limit} ms`;
      say(`${v.id.padEnd(56) + best.toFixed(2).padStart(14)}  ${verdict}`);
      vectorRows.push({
        id: v.id,
        ms_best_of_5: Number(best.toFixed(3)),
        budget_ms: limit,
        ok: limit === null ? null : best < limit,
      });
    }
  }

  // The learned PRM's cost per RL step (onnxruntime-web wasm, Node): one process per thread
  // count, since onnxruntime-web fixes its thread count once per process (scripts/bench/prm.ts).
  say(
    `\n${"learned PRM, ONNX in onnxruntime-web (wasm), 64 rollouts".padEnd(56)}${"ms median".padStart(14)}  ms min`,
  );
  const prmRows: Record<string, unknown>[] = [];
  for (const threads of [1, 2, 4]) {
    const res = spawnSync(
      process.execPath,
      ["--import", "tsx", path.join(here, "prm.ts"), "--threads", String(threads)],
      { encoding: "utf8", timeout: 600_000 },
    );
    const last = res.stdout.trim().split("\n").pop() ?? "";
    let r: { steps: number; msMedian: number; msMin: number; error?: string };
    try {
      r = JSON.parse(last);
    } catch {
      r = { steps: 0, msMedian: 0, msMin: 0, error: res.stderr.trim().split("\n")[0] };
    }
    if (res.status !== 0 || r.error !== undefined) {
      say(`${`  ${threads} thread(s)`.padEnd(56)}  failed: ${r.error}`);
      prmRows.push({ threads, error: r.error ?? `exit ${res.status}` });
      continue;
    }
    prmRows.push({ threads, steps: r.steps, msMedian: r.msMedian, msMin: r.msMin });
    say(
      `${`  ${threads} thread(s), ${r.steps} steps`.padEnd(56)}${r.msMedian.toFixed(0).padStart(14)}  ${r.msMin.toFixed(0)}`,
    );
  }
  return {
    node: process.version,
    prompts: PROMPTS,
    G,
    repeats: REPEATS,
    target: TARGET,
    rollouts_per_s: Object.fromEntries(
      rows.map(([name, r, isRule]) => [name, { ...r, rule: isRule }]),
    ),
    vectors: vectorRows,
    prm: prmRows,
  };
});
