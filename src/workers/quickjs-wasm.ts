/**
 * Where the reward sandbox's QuickJS wasm file lies in the built site: a
 * Vite `?url` asset (served in dev, copied with a hashed name by the build),
 * as onnxruntime's files are (src/onnx/browser-wasm.ts). Browser only (the
 * reward worker); Node loads the package's own file.
 */
import wasmUrl from "@jitl/quickjs-wasmfile-release-sync/wasm?url";
import { loadSandbox, type SandboxEngine } from "../rewards/index";

/** Loads the sandbox from the served wasm file (absolute URL: the site is built with a relative base). */
export function loadBrowserSandbox(): Promise<SandboxEngine> {
  return loadSandbox(new URL(wasmUrl, import.meta.url).href);
}
