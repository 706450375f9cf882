/**
 * The learned PRM as an ONNX model run with onnxruntime-web (wasm execution
 * provider) in the reward worker and in Node (docs/reward-spec.md §2, "PRM").
 *
 * The file is the tiny VLM written by exportPolicyOnnx (src/onnx/export.ts)
 * with the `token_logprobs` output [batch, textLen]: each text column's token
 * log-probability under the PRM, from which a step's score follows
 * (prefixScore, src/prm/scorer.ts). Metadata: `reward_lab.kind` = "prm",
 * `reward_lab.prm_score` = PRM_SCORE, and the exporter's `reward_lab.config`
 * (the ModelConfig, from which the PRM's text shape and image size follow).
 */
import onnxProto from "onnx-proto";
import { paramLayout, validateConfig, type ModelConfig } from "../model/config";
import { exportPolicyOnnx, POLICY_ONNX_IO } from "../onnx/export";
import { createOnnxSession, type OnnxSessionOptions } from "../onnx/session";
import { vocabSize } from "../tasks/tokenizer";
import { createStepScorer, type StepScorer } from "./scorer";
import { prmShape } from "./data";

const { onnx } = onnxProto;

/** Metadata value of `reward_lab.kind` in a PRM file. */
const PRM_KIND = "prm";
/** Metadata value of `reward_lab.prm_score`: how a step's score is read from the output. */
const PRM_SCORE = "min-token-probability";

/**
 * Writes a PRM (checkpoint config and flat parameters) as an ONNX model with
 * the `token_logprobs` output (layout above).
 * @throws exportPolicyOnnx's errors (bad config, wrong length, non-finite parameter).
 */
export function exportPrmOnnx(config: ModelConfig, params: Float32Array): Uint8Array {
  const layout = paramLayout(config);
  if (params.length !== layout.totalFloats)
    throw new Error(
      `params has ${params.length} floats, paramLayout(config) needs ${layout.totalFloats}`,
    );
  return exportPolicyOnnx(config, params, {
    tokenLogprobs: true,
    metadata: { "reward_lab.kind": PRM_KIND, "reward_lab.prm_score": PRM_SCORE },
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
  if (meta.get("reward_lab.prm_score") !== PRM_SCORE)
    throw new Error(
      `scores steps by ${JSON.stringify(meta.get("reward_lab.prm_score") ?? null)}, this lab by ${PRM_SCORE} (re-export it with npm run export:prm)`,
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
  const output = model.graph?.output?.[0];
  const dims = output?.type?.tensorType?.shape?.dim ?? [];
  if (output?.name !== POLICY_ONNX_IO.tokenLogprobs || dims.length !== 2)
    throw new Error(
      `has output ${output?.name ?? "(none)"} of shape [${dims.map((d) => d.dimValue ?? d.dimParam).join(", ")}], a PRM's is ${POLICY_ONNX_IO.tokenLogprobs} [batch, textLen]`,
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
  const session = await createOnnxSession(bytes, {
    ...opts,
    output: POLICY_ONNX_IO.tokenLogprobs,
  });
  return {
    ...createStepScorer({
      shape,
      imageSize: config.imageHeight * config.imageWidth * config.imageChannels,
      forward: ({ n, images, tokens }) => session.run(images, tokens, n),
    }),
    dispose: () => void session.release(),
  };
}
