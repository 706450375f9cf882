import { readFileSync } from "node:fs";
import { checkRecording } from "./src/store/saved-run-check";
import { computeCallouts } from "./src/ui/lib/callouts";
import { overviewMetrics } from "./src/store/lesson";
for (const name of process.argv.slice(2)) {
  const rec = checkRecording(JSON.parse(readFileSync(`public/recordings/${name}.json`, "utf8")), name);
  const evalRows = Object.fromEntries(Object.entries(rec.run.metrics.byVariant).map(([v, r]) => [v, r.eval]));
  const c = computeCallouts({ evalRows, markers: rec.run.metrics.markers, evalSize: rec.run.experiment.evalSize, metrics: overviewMetrics(rec.preset, rec.run.experiment) });
  console.log(`## ${name}: ${c.length} callouts`);
  for (const x of c) console.log(`${x.rule} @${x.step}: ${x.text}`);
}
