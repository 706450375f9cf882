/**
 * The learned PRM on Node (the CLI's in-process reward scorer): read from a
 * file on first use (src/prm/file.ts names the file in every error).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { loadCheckpoint } from "../model/checkpoint";
import { cachedPrm, openPrm, PRM_SOURCES, type PrmSource } from "../prm/file";
import { exportPrmOnnx } from "../prm/onnx";
import type { PrmProvider } from "../prm/scorer";

/** The file's bytes, or null when there is none; an error when the path is not a file. */
function readIfThere(file: string): Uint8Array | null {
  if (!existsSync(file)) return null;
  if (!statSync(file).isFile()) throw new Error("it is not a file");
  return new Uint8Array(readFileSync(file));
}

/** The PRM in `file` (absolute path), opened on first use; a missing file is an error naming it. */
export function nodePrm(file: string): PrmProvider {
  return cachedPrm(file, async () => readIfThere(file), openPrm);
}

/**
 * The PRM named `source` (PRM_SOURCES) under `publicDir`, opened on first
 * use: a PRM file as it is, a policy checkpoint read as a PRM (its token
 * probabilities on the trace: written in memory as a PRM ONNX model by
 * exportPrmOnnx, then opened as the shipped file is). Errors name the file.
 */
export function nodePrmSource(publicDir: string, source: PrmSource): PrmProvider {
  const { file: rel, readAs } = PRM_SOURCES[source];
  const file = join(publicDir, rel);
  if (readAs === "prm") return nodePrm(file);
  return cachedPrm(
    file,
    async () => {
      const bytes = readIfThere(file);
      if (bytes === null) return null;
      const ckpt = loadCheckpoint(bytes);
      return exportPrmOnnx(ckpt.config, ckpt.params);
    },
    openPrm,
  );
}
