/**
 * The arguments of `npm run export:onnx` (src/cli/export-onnx.ts) and `npm
 * run export:prm` (src/cli/export-prm.ts): positionals only, one table each,
 * for the parser, --help and docs/cli.md.
 */
import type { CliTable } from "../lib/cli-table";

export const EXPORT_ONNX_TABLE = {
  command: "npm run export:onnx --",
  summary:
    "Writes a checkpoint's policy as an ONNX graph (opset 17), checked in onnxruntime-web against the CPU reference before it is written.",
  flags: {},
  positionals: [
    { name: "CHECKPOINT", help: "the policy checkpoint", required: true },
    { name: "OUT.onnx", help: "the ONNX file to write", required: true },
  ],
} as const satisfies CliTable;

export const EXPORT_PRM_TABLE = {
  command: "npm run export:prm --",
  summary:
    "Writes a trained PRM checkpoint as the ONNX model the reward worker runs, checked in onnxruntime-web against the CPU reference.",
  flags: {},
  positionals: [
    {
      name: "IN.ckpt",
      help: "the PRM checkpoint",
      defaultText: "public/prm/prm-digits2-small.ckpt",
    },
    { name: "OUT.onnx", help: "the ONNX file to write", defaultText: "IN with .onnx" },
  ],
} as const satisfies CliTable;
