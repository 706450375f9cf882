/**
 * WebGPU in Node through the npm package `webgpu` (Dawn). Used by GPU tests,
 * benchmarks and the headless CLI; never imported by browser code.
 */
import { existsSync, mkdirSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { requestLabDevice, NO_ADAPTER_HELP, type LabDevice } from "./device";

/** Debian chromium's SwiftShader Vulkan ICD (a CPU implementation of Vulkan). */
export const SWIFTSHADER_ICD = "/usr/lib/chromium/vk_swiftshader_icd.json";

// Dawn's GPU object must stay referenced for the whole process, or it is
// garbage-collected and the process crashes (docs/design.md pitfalls).
let keptGpu: GPU | null = null;

/**
 * Returns a lab device in Node. Points VK_ICD_FILENAMES at SwiftShader when
 * it is unset and the ICD exists, and XDG_RUNTIME_DIR at a private temp
 * folder when it is unset (headless machines; otherwise the native layer
 * prints "XDG_RUNTIME_DIR is invalid or not set" twice).
 * @throws Error with install instructions when no adapter is found.
 */
export async function requestNodeDevice(): Promise<LabDevice> {
  if (!process.env.VK_ICD_FILENAMES && existsSync(SWIFTSHADER_ICD)) {
    process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
  }
  if (!process.env.XDG_RUNTIME_DIR) {
    const dir = join(tmpdir(), `reward-lab-runtime-${userInfo().uid}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    process.env.XDG_RUNTIME_DIR = dir;
  }
  if (!keptGpu) {
    let mod: typeof import("webgpu");
    try {
      mod = await import("webgpu");
    } catch (e) {
      throw new Error(
        `The npm package 'webgpu' failed to load (${(e as Error).message}). ${NO_ADAPTER_HELP}`,
      );
    }
    Object.assign(globalThis, mod.globals);
    keptGpu = mod.create([]) as unknown as GPU;
  }
  return requestLabDevice(keptGpu);
}
