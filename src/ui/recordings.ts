/**
 * The page's recordings: fetched from the site (public/recordings/<preset>.json,
 * relative to the page, so any static host and sub-path works), read as
 * untrusted JSON and checked like a saved run (src/store/saved-run-check.ts),
 * opened where its curves part (./lib/recording-open.ts).
 */
import { parseUntrustedJson } from "../lib/untrusted";
import { recordingPath, type Recording } from "../store/recording";
import { checkRecording } from "../store/saved-run-check";
import { overviewMetrics } from "../store/lesson";
import { isPresetName } from "../settings/presets";
import { recordingOpenStep } from "./lib/recording-open";

/** Largest recording read (lab choice: shipped ones are a few hundred KB). */
const MAX_RECORDING_BYTES = 8 * 1024 * 1024;

/**
 * Loads preset `preset`'s shipped recording, with the step it opens at.
 * @throws Error naming the file: missing, too large, not JSON, or failing its checks.
 */
export async function fetchRecording(preset: string): Promise<Recording> {
  const url = new URL(recordingPath(preset), new URL(import.meta.env.BASE_URL, location.href));
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url.pathname}: HTTP ${res.status}`);
  const text = await res.text();
  if (text.length > MAX_RECORDING_BYTES)
    throw new Error(`${url.pathname}: larger than ${MAX_RECORDING_BYTES} bytes`);
  const what = `recording '${preset}'`;
  const rec = checkRecording(parseUntrustedJson(text, what), what);
  const overview = overviewMetrics(
    isPresetName(rec.preset) ? rec.preset : null,
    rec.run.experiment,
  );
  return { ...rec, openStep: recordingOpenStep(rec, overview).step };
}

/**
 * Why this browser cannot train, or null when it can: no `navigator.gpu`, or
 * no adapter from it. Never throws.
 */
export async function whyNoWebGpu(): Promise<string | null> {
  const gpu = (navigator as Navigator & { gpu?: GPU }).gpu;
  if (!gpu) return "This browser has no WebGPU";
  try {
    return (await gpu.requestAdapter()) ? null : "This browser's WebGPU found no GPU adapter";
  } catch {
    return "This browser's WebGPU could not give an adapter";
  }
}
