/**
 * Re-writes checkpoints in the current format version (with checksums):
 *   npm run resave:checkpoints -- [FILE …]
 * Without files: every .ckpt under public/checkpoints (the shipped cold
 * starts). Each file is loaded with every check (an older version loads with
 * its warning), saved again, re-loaded and compared bit for bit with what was
 * read (config, parameters, metadata), then replaces the original atomically
 * (temporary file, then rename). A file that fails any step is left as it was.
 * Prints one JSON line: {"files": [{"file", "from", "to", "bytes"}]} or
 * {"error", "file"}.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { CHECKPOINT_VERSION, loadCheckpoint, saveCheckpoint } from "../src/model/checkpoint";
import { finishCli, writeFileAtomic } from "../src/cli/out-files";
import { REPO_ROOT } from "../src/cli/node-run";
import { RESAVE_CHECKPOINTS_TABLE } from "../src/cli/script-flags";
import { readCliFlags } from "../src/lib/cli-flags";

let current = "";

async function main(): Promise<void> {
  const args = readCliFlags(RESAVE_CHECKPOINTS_TABLE).positionals;
  const dir = join(REPO_ROOT, "public", "checkpoints");
  const files = args.length
    ? args.map((f) => resolve(f))
    : readdirSync(dir)
        .filter((f) => f.endsWith(".ckpt"))
        .sort()
        .map((f) => join(dir, f));
  if (files.length === 0) throw new Error(`no .ckpt files in ${dir}`);
  const done: { file: string; from: number; to: number; bytes: number }[] = [];
  for (const file of files) {
    current = file;
    const bytes = new Uint8Array(readFileSync(file));
    const from = new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
    const ck = loadCheckpoint(bytes);
    if (ck.warning) console.error(`${file}: ${ck.warning}`);
    const out = saveCheckpoint({ config: ck.config, params: ck.params, meta: ck.meta });
    const back = loadCheckpoint(out);
    const same =
      JSON.stringify(back.config) === JSON.stringify(ck.config) &&
      JSON.stringify(back.meta) === JSON.stringify(ck.meta) &&
      Buffer.from(back.params.buffer).equals(Buffer.from(ck.params.buffer));
    if (!same) throw new Error("the re-saved file does not read back the same");
    writeFileAtomic(file, out);
    console.error(`${file}: version ${from} → ${CHECKPOINT_VERSION} (${out.length} bytes)`);
    done.push({ file, from, to: CHECKPOINT_VERSION, bytes: out.length });
  }
  current = "";
  process.stdout.write(`${JSON.stringify({ files: done })}\n`);
}

finishCli("resave:checkpoints", main(), () => (current ? { file: current } : {}));
