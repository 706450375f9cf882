import { readFileSync, statSync } from "node:fs";
import { checkRecording } from "./src/store/saved-run-check";
import { computeCallouts } from "./src/ui/lib/callouts";
import { overviewMetrics } from "./src/store/lesson";
import { variantLabel } from "./src/ui/lib/variant-meta";
import { metricName } from "./src/ui/lib/callouts";
const log = readFileSync("/tmp/rec-queue.log", "utf8");
const secs: Record<string, string> = { default: "1865 s (load 19–22)" };
for (const m of log.matchAll(/== (\S+) end .*?load average: ([\d.]+), ([\d.]+), ([\d.]+) (\{.*\})/g)) {
  const j = JSON.parse(m[5]);
  secs[m[1]] = `${j.seconds} s (load ${m[2]})`;
}
const rows: string[] = [];
for (const name of process.argv.slice(2)) {
  const f = `public/recordings/${name}.json`;
  const rec = checkRecording(JSON.parse(readFileSync(f, "utf8")), name);
  const evalRows = Object.fromEntries(Object.entries(rec.run.metrics.byVariant).map(([v, r]) => [v, r.eval]));
  const c = computeCallouts({ evalRows, markers: rec.run.metrics.markers, evalSize: rec.run.experiment.evalSize, metrics: overviewMetrics(rec.preset, rec.run.experiment) });
  const fired = c.length ? [...c].reverse().map((x) => `${x.rule} @${x.step} (${x.variants.map(variantLabel).join(" vs ")}, ${metricName(x.metric)})`).join("; ") : "none: the bands overlap throughout";
  rows.push(`| \`${name}\` | \`${rec.command}\` | ${Math.round(statSync(f).size / 1000)} KB | ${secs[name] ?? "?"} | ${fired} |`);
}
console.log(rows.join("\n"));
