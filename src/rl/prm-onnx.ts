/**
 * The learned PRM as an ONNX model run with onnxruntime-web (wasm execution
 * provider) in the reward worker and in Node (docs/reward-spec.md §2, "PRM").
 *
 * The file is the tiny VLM written by exportPolicyOnnx (src/onnx/export.ts)
 * with its head cut to the two verdict columns: `logits` [batch, textLen, 2]
 * = (Correct, Incorrect) logits of each text row, so a step's score is
 * σ(l_Correct − l_Incorrect) at the row before its verdict slot. Metadata:
 * `reward_lab.kind` = "prm", `reward_lab.prm_verdicts` = "Correct,Incorrect",
 * and the exporter's `reward_lab.config` (the ModelConfig, from which the
 * PRM's text shape and image size follow).
 */
import onnxProto from "onnx-proto";
import { paramLayout, validateConfig, type ModelConfig } from "../model/config";
import { exportPolicyOnnx } from "../onnx/export";
import { createOnnxSession, type OnnxSessionOptions } from "../onnx/session";
import { vocabSize } from "../tasks/tokenizer";
import { CORRECT_ID, INCORRECT_ID } from "./prm-data";
import { createStepScorer, verdictScore, type StepScorer } from "./prm-scorer";
import { prmShape } from "./prm-data";

const { onnx } = onnxProto;

/** Metadata value of `reward_lab.kind` in a PRM file. */
const PRM_KIND = "prm";
/** The head's two columns, in order. */
const PRM_VERDICTS = "Correct,Incorrect";

/**
 * Writes a PRM (checkpoint config and flat parameters) as an ONNX model with
 * the two-column verdict head (layout above).
 * @throws exportPolicyOnnx's errors (bad config, wrong length, non-finite parameter).
 */
export function exportPrmOnnx(config: ModelConfig, params: Float32Array): Uint8Array {
  const layout = paramLayout(config);
  const head = layout.byName.get("head.w");
  if (!head || params.length !== layout.totalFloats)
    throw new Error(
      `params has ${params.length} floats, paramLayout(config) needs ${layout.totalFloats}`,
    );
  const d = config.dModel;
  const V = config.vocabSize;
  const weight = new Float32Array(d * 2);
  for (let i = 0; i < d; i++) {
    weight[i * 2] = params[head.offset + i * V + CORRECT_ID];
    weight[i * 2 + 1] = params[head.offset + i * V + INCORRECT_ID];
  }
  return exportPolicyOnnx(config, params, {
    head: { weight, outDim: 2 },
    metadata: { "reward_lab.kind": PRM_KIND, "reward_lab.prm_verdicts": PRM_VERDICTS },
  });
}

/** The model config a PRM ONNX file says it holds. @throws Error saying what is missing or wrong. */
function prmConfigOf(bytes: Uint8Array): ModelConfig {
  let model: InstanceType<typeof onnx.ModelProto>;
  try {
    model = onnx.ModelProto.decode(bytes);
  } catch (e) {
    throw new Error(`is not an ONNX model (${(e as Error).message})`);
  }
  const meta = new Map((model.metadataProps ?? []).map((p) => [p.key ?? "", p.value ?? ""]));
  if (meta.get("reward_lab.kind") !== PRM_KIND)
    throw new Error(
      `is an ONNX model but not a PRM (reward_lab.kind ${JSON.stringify(meta.get("reward_lab.kind") ?? null)})`,
    );
  if (meta.get("reward_lab.prm_verdicts") !== PRM_VERDICTS)
    throw new Error(
      `has verdict columns ${JSON.stringify(meta.get("reward_lab.prm_verdicts") ?? null)}, expected ${PRM_VERDICTS}`,
    );
  let config: ModelConfig;
  try {
    config = JSON.parse(meta.get("reward_lab.config") ?? "") as ModelConfig;
    validateConfig(config);
  } catch (e) {
    throw new Error(`has no valid reward_lab.config (${(e as Error).message})`);
  }
  if (config.vocabSize !== vocabSize)
    throw new Error(`has a vocabulary of ${config.vocabSize} tokens, the lab's has ${vocabSize}`);
  const out = model.graph?.output?.[0]?.type?.tensorType?.shape?.dim ?? [];
  const width = out[2]?.dimValue;
  if (out.length !== 3 || Number(width) !== 2)
    throw new Error(
      `has output logits of shape [${out.map((d) => d.dimValue ?? d.dimParam).join(", ")}], a PRM's is [batch, textLen, 2]`,
    );
  return config;
}

/**
 * Opens a PRM ONNX file as a step scorer on an onnxruntime-web session (wasm
 * EP; `opts` as createOnnxSession's: threads, the browser's wasm paths).
 * @throws Error when the bytes are not a PRM ONNX model (named reason) or
 *   onnxruntime cannot load them.
 */
export async function openPrmOnnx(
  bytes: Uint8Array,
  opts: OnnxSessionOptions = {},
): Promise<StepScorer> {
  const config = prmConfigOf(bytes);
  const shape = prmShape(config);
  const session = await createOnnxSession(bytes, opts);
  const L = shape.promptLen + shape.maxNew;
  return {
    ...createStepScorer({
      shape,
      imageSize: config.imageHeight * config.imageWidth * config.imageChannels,
      forward: async ({ n, images, tokens, cols }) => {
        // Only the text columns up to the last verdict slot are needed (causal): a shorter run.
        let len = 1;
        for (let i = 0; i < n; i++) len = Math.max(len, cols[i]);
        const cut = new Int32Array(n * len);
        for (let i = 0; i < n; i++) cut.set(tokens.subarray(i * L, i * L + len), i * len);
        const logits = await session.run(images, cut, n);
        const out = new Float32Array(n);
        for (let i = 0; i < n; i++) {
          const at = (i * len + cols[i] - 1) * 2;
          out[i] = verdictScore(logits[at], logits[at + 1]);
        }
        return out;
      },
    }),
    dispose: () => void session.release(),
  };
}
