/**
 * The page of `npm run bench:engine -- --env chromium`: starts the benchmark
 * worker (the engine runs off the main thread, as the lab's trainer does) with
 * the repeat count from the URL (?repeats=N, 5–50) and writes its one JSON
 * line into #result and window.__benchEngine for the runner to read.
 */
const out = document.getElementById("result") as HTMLElement;
const raw = new URLSearchParams(location.search).get("repeats") ?? "5";
const repeats = Number(raw);
const done = (line: Record<string, unknown>) => {
  (window as unknown as { __benchEngine: unknown }).__benchEngine = line;
  out.textContent = JSON.stringify(line);
};
if (!Number.isInteger(repeats) || repeats < 5 || repeats > 50) {
  done({ error: `?repeats must be an integer 5–50, got '${raw}'` });
} else {
  const worker = new Worker(new URL("./engine-worker.ts", import.meta.url), {
    type: "module",
  });
  worker.onmessage = (ev: MessageEvent) => {
    const msg = ev.data as { log?: string; line?: Record<string, unknown> };
    if (msg.log) console.log(`[bench-engine] ${msg.log}`);
    if (msg.line) done(msg.line);
  };
  worker.onerror = (ev) => done({ error: `worker: ${ev.message}` });
  worker.postMessage({ repeats });
}
