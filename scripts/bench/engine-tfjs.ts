/**
 * The lab's tiny VLM written with TensorFlow.js ops, for the engine benchmark
 * (scripts/bench/engine.ts): same parameters (paramLayout names and shapes,
 * same init), same model semantics (src/model/reference.ts): patch tokens =
 * pixels·patch.w + patch.b + wpe[k]; text tokens = wte[id] + wpe[P+s]; causal
 * attention with PAD text keys masked; pre-norm blocks with GELU-tanh MLP;
 * lnf; head. The train step is next-token cross-entropy over the text
 * positions (logit at P+s predicts text token s+1) and one optimizer step
 * with tf.train.adam (β1 0.9, β2 0.95, eps 1e-8; TF.js has no AdamW and no
 * global-norm clipping, so those two parts of our step are not mirrored: the
 * difference is two element-wise passes over the parameters).
 *
 * Backend: `@tensorflow/tfjs-backend-webgpu` 4.22.0. In Node it gets
 * `navigator.gpu` from the npm `webgpu` package (Dawn) — see setupTfjsWebGpu.
 */
import type * as TF from "@tensorflow/tfjs";
import { numPatches, paramLayout, type ModelConfig } from "../../src/model/config";

type Tf = typeof TF;

/**
 * Loads TF.js with the WebGPU backend. In Node, `gpu` (a Dawn GPU object from
 * `webgpu`'s create()) is installed as navigator.gpu first.
 * @throws Error when the webgpu backend cannot be initialised.
 */
export async function setupTfjsWebGpu(gpu?: GPU): Promise<Tf> {
  if (gpu) {
    const g = globalThis as { navigator?: object };
    if (!g.navigator) g.navigator = {};
    Object.defineProperty(g.navigator, "gpu", { value: gpu, configurable: true });
  }
  const tf = await import("@tensorflow/tfjs");
  await import("@tensorflow/tfjs-backend-webgpu");
  const ok = await tf.setBackend("webgpu");
  await tf.ready();
  if (!ok || tf.getBackend() !== "webgpu")
    throw new Error(`TF.js webgpu backend failed to initialise (backend: ${tf.getBackend()})`);
  return tf;
}

/** A TF.js train step of the tiny VLM for a fixed batch. */
export interface TfjsTrainer {
  /** Runs forward + backward + Adam, waits for the loss, returns it. */
  step(): Promise<number>;
  dispose(): void;
}

/**
 * Builds variables from `params` (flat paramLayout buffer) and a fixed batch.
 * @param images [B, H·W·C] f32; @param tokens [B, textLen] i32; PAD keys masked.
 */
export function buildTfjsTrainer(
  tf: Tf,
  config: ModelConfig,
  params: Float32Array,
  batch: {
    images: Float32Array;
    tokens: Int32Array;
    B: number;
    textLen: number;
    padId: number;
    lr: number;
  },
): TfjsTrainer {
  const { B, textLen, padId } = batch;
  const c = config;
  const d = c.dModel;
  const H = c.nHeads;
  const hd = d / H;
  const P = numPatches(c);
  const T = P + textLen;
  const ps = c.patchSize;
  const layout = paramLayout(c);
  const vars = new Map<string, TF.Variable>();
  for (const t of layout.tensors) {
    vars.set(
      t.name,
      tf.variable(tf.tensor(params.subarray(t.offset, t.offset + t.size), t.shape), true, t.name),
    );
  }
  const w = (name: string) => vars.get(name)!;

  const images = tf.tensor(batch.images, [
    B,
    c.imageHeight / ps,
    ps,
    c.imageWidth / ps,
    ps,
    c.imageChannels,
  ]);
  const patches = tf.keep(
    images.transpose([0, 1, 3, 2, 4, 5]).reshape([B * P, ps * ps * c.imageChannels]),
  );
  images.dispose();
  const ids = tf.tensor(batch.tokens, [B, textLen], "int32");
  const inputIds = tf.keep(ids.reshape([B * textLen]));
  // Targets: text token s+1 for logit at text position s, s < textLen − 1.
  const targets = tf.keep(
    tf
      .oneHot(ids.slice([0, 1], [B, textLen - 1]).reshape([B * (textLen - 1)]), c.vocabSize)
      .toFloat(),
  );
  // Additive attention mask [B, 1, T, T]: −1e9 where j > i or key j is a PAD text token.
  const maskHost = new Float32Array(B * T * T);
  for (let b = 0; b < B; b++)
    for (let i = 0; i < T; i++)
      for (let j = 0; j < T; j++) {
        const pad = j >= P && batch.tokens[b * textLen + (j - P)] === padId;
        maskHost[(b * T + i) * T + j] = j > i || pad ? -1e9 : 0;
      }
  const mask = tf.keep(tf.tensor(maskHost, [B, 1, T, T]));
  ids.dispose();

  const layerNorm = (x: TF.Tensor2D, g: string, bias: string): TF.Tensor2D => {
    const { mean, variance } = tf.moments(x, -1, true);
    return x
      .sub(mean)
      .mul(tf.rsqrt(variance.add(1e-5)))
      .mul(w(g))
      .add(w(bias)) as TF.Tensor2D;
  };
  const gelu = (x: TF.Tensor): TF.Tensor => {
    const inner = x.add(x.pow(3).mul(0.044715)).mul(Math.sqrt(2 / Math.PI));
    return x.mul(0.5).mul(tf.tanh(inner).add(1));
  };

  const loss = (): TF.Scalar => {
    const wpe = w("wpe");
    const patchEmb = patches
      .matMul(w("patch.w"))
      .add(w("patch.b"))
      .reshape([B, P, d])
      .add(wpe.slice([0, 0], [P, d]));
    const textEmb = tf
      .gather(w("wte"), inputIds)
      .reshape([B, textLen, d])
      .add(wpe.slice([P, 0], [textLen, d]));
    let x = tf.concat([patchEmb, textEmb], 1).reshape([B * T, d]) as TF.Tensor2D;
    for (let l = 0; l < c.nLayers; l++) {
      const pre = `h.${l}.`;
      const qkv = layerNorm(x, `${pre}ln1.g`, `${pre}ln1.b`)
        .matMul(w(`${pre}attn.wqkv`))
        .add(w(`${pre}attn.bqkv`));
      const [q, k, v] = tf
        .split(qkv.reshape([B, T, 3, H, hd]), 3, 2)
        .map((t) => t.reshape([B, T, H, hd]).transpose([0, 2, 1, 3]));
      const att = tf.softmax(
        tf
          .matMul(q, k, false, true)
          .mul(1 / Math.sqrt(hd))
          .add(mask),
        -1,
      );
      const y = tf
        .matMul(att, v)
        .transpose([0, 2, 1, 3])
        .reshape([B * T, d]);
      x = x.add(y.matMul(w(`${pre}attn.wo`)).add(w(`${pre}attn.bo`)));
      const h = gelu(
        layerNorm(x, `${pre}ln2.g`, `${pre}ln2.b`)
          .matMul(w(`${pre}mlp.wfc`))
          .add(w(`${pre}mlp.bfc`)),
      );
      x = x.add(h.matMul(w(`${pre}mlp.wproj`)).add(w(`${pre}mlp.bproj`)));
    }
    const text = x
      .reshape([B, T, d])
      .slice([0, P, 0], [B, textLen - 1, d])
      .reshape([B * (textLen - 1), d]) as TF.Tensor2D;
    const logits = layerNorm(text, "lnf.g", "lnf.b").matMul(w("head.w"));
    return tf.losses.softmaxCrossEntropy(targets, logits) as TF.Scalar;
  };

  const opt = tf.train.adam(batch.lr, 0.9, 0.95, 1e-8);
  const varList = [...vars.values()];
  return {
    async step() {
      const cost = opt.minimize(loss, true, varList)!;
      const v = (await cost.data())[0];
      cost.dispose();
      return v;
    },
    dispose() {
      opt.dispose();
      for (const v of varList) v.dispose();
      for (const t of [patches, inputIds, targets, mask]) t.dispose();
    },
  };
}
