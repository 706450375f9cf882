/**
 * The learned PRM on Node (the CLI's in-process reward scorer): read from a
 * file on first use (src/prm/file.ts names the file in every error).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { cachedPrm, openPrm } from "../prm/file";
import type { PrmProvider } from "../prm/scorer";

/** The PRM in `file` (absolute path), opened on first use; a missing file is an error naming it. */
export function nodePrm(file: string): PrmProvider {
  return cachedPrm(
    file,
    async () => {
      if (!existsSync(file)) return null;
      if (!statSync(file).isFile()) throw new Error("it is not a file");
      return new Uint8Array(readFileSync(file));
    },
    openPrm,
  );
}
