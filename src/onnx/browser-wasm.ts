/**
 * Where onnxruntime-web's wasm runtime lies in the built site: the `.wasm`
 * binary and its `.mjs` loader, as Vite `?url` assets (served in dev, copied
 * with hashed names by the build). Browser only (page or web worker); Node
 * needs nothing (src/onnx/session.ts). Pass as `createOnnxSession(bytes,
 * { wasmPaths: ortWasmPaths() })`.
 *
 * Naming the loader too (not only the binary) makes onnxruntime-web import
 * it from its own URL instead of the copy embedded in its bundle, so its
 * thread workers start from that file, wherever the bundler put the rest.
 * The two files are the pair of the "onnxruntime-web/wasm" build (wasm
 * execution provider only), which vite.config.ts makes the page's
 * "onnxruntime-web".
 */
import wasmUrl from "onnxruntime-web/ort-wasm-simd-threaded.wasm?url";
import mjsUrl from "onnxruntime-web/ort-wasm-simd-threaded.mjs?url";

/**
 * The runtime's file URLs made absolute (onnxruntime-web requires absolute
 * paths; the site is built with a relative base).
 */
export function ortWasmPaths(): { wasm: string; mjs: string } {
  return {
    wasm: new URL(wasmUrl, import.meta.url).href,
    mjs: new URL(mjsUrl, import.meta.url).href,
  };
}
