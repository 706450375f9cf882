/**
 * Reward-library benchmark: rollouts per second for each reward on groups of
 * 8 realistic traces, parser throughput, the time of the large /
 * pathological case vectors against the budgets in their notes, and the
 * learned PRM's cost per RL step (scripts/bench-prm.ts, 1, 2 and 4 threads).
 * Run: npx tsx scripts/bench-rewards.ts   (single thread = one core)
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { TaskPrompt } from "../src/tasks/types";
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
} from "../src/rewards/index";
import { groupAdvantages } from "../src/kernels/advantages/reference";

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

/**
 * Runs `body` (one group of G rollouts) over the groups for ≥ minMs of CPU
 * time and returns rollouts per CPU-second of this process, i.e. per core.
 * CPU time rather than wall time, because the machine may be shared.
 */
function rate(body: (p: TaskPrompt, texts: string[], k: number) => void, minMs = 600): number {
  for (let warm = 0; warm < PROMPTS; warm++) body(prompts[warm], groups[warm], warm);
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  let rollouts = 0;
  let k = 0;
  const start = cpuMs();
  while (cpuMs() - start < minMs) {
    for (let j = 0; j < 16; j++, k++) {
      const i = k % PROMPTS;
      body(prompts[i], groups[i], k);
      rollouts += G;
    }
  }
  return rollouts / ((cpuMs() - start) / 1000);
}

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

const TARGET = 20000;
const rows: [string, number, boolean][] = [];
const rule = (name: string, r: number) => rows.push([name, r, true]);
const other = (name: string, r: number) => rows.push([name, r, false]);

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
    for (let i = 0; i < G; i++) acreConsistency({ first: "7", second: "\\frac{14}{2}", gold: "7" });
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
  rate(() => groupAdvantages({ rewards: advRewards, groupSize: 8, estimator: "grpo" })) * 64,
);

console.log(
  `Reward-library benchmark, ${PROMPTS} prompts × G = ${G}, single thread, per CPU-second (${process.version})`,
);
console.log(
  `Corpus: ${allTexts.length} rollouts, mean ${Math.round(allTexts.reduce((a, t) => a + t.length, 0) / allTexts.length)} chars`,
);
console.log("");
console.log(`${"reward / function".padEnd(56) + "rollouts/s".padStart(14)}  target`);
for (const [name, r, isRule] of rows) {
  const verdict = isRule ? (r >= TARGET ? `ok (>= ${TARGET})` : `BELOW ${TARGET}`) : "-";
  console.log(
    `${name.padEnd(56) + Math.round(r).toLocaleString("en-US").padStart(14)}  ${verdict}`,
  );
}

// Large / pathological vectors against their budgets.
const here = path.dirname(fileURLToPath(import.meta.url));
const vectorsPath = path.resolve(here, "..", "test/fixtures/vectors.json");
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
  console.log(`\n(no vectors at ${vectorsPath})`);
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
if (timedVectors.length > 0) {
  console.log(
    `${"\nlarge / pathological vectors".padEnd(56) + "ms (best of 5)".padStart(14)}  budget`,
  );
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
    console.log(`${v.id.padEnd(56) + best.toFixed(2).padStart(14)}  ${verdict}`);
  }
}

// The learned PRM's cost per RL step (onnxruntime-web wasm, Node): one process per thread
// count, since onnxruntime-web fixes its thread count once per process (scripts/bench-prm.ts).
console.log(
  `\n${"learned PRM, ONNX in onnxruntime-web (wasm), 64 rollouts".padEnd(56)}${"ms median".padStart(14)}  ms min`,
);
for (const threads of [1, 2, 4]) {
  const res = spawnSync(
    process.execPath,
    ["--import", "tsx", path.join(here, "bench-prm.ts"), String(threads)],
    { encoding: "utf8", timeout: 600_000 },
  );
  const last = res.stdout.trim().split("\n").pop() ?? "";
  if (res.status !== 0) {
    console.log(
      `${`  ${threads} thread(s)`.padEnd(56)}  failed: ${res.stderr.trim().split("\n")[0]}`,
    );
    continue;
  }
  const r = JSON.parse(last) as { steps: number; msMedian: number; msMin: number };
  console.log(
    `${`  ${threads} thread(s), ${r.steps} steps`.padEnd(56)}${r.msMedian.toFixed(0).padStart(14)}  ${r.msMin.toFixed(0)}`,
  );
}
