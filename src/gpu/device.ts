/**
 * Adapter and device acquisition, shared by the browser worker and Node.
 *
 * The default WebGPU device allows only 8 storage buffers per stage and 16 KiB
 * of workgroup memory; SwiftShader's adapter offers 10–12 and 32 KiB, so we
 * request the adapter's own limits (docs/design.md, "Running without a GPU").
 */

/** Message shown whenever no adapter can be found: says what to install. */
export const NO_ADAPTER_HELP =
  "No WebGPU adapter found. In a browser: use Chromium/Chrome with WebGPU enabled " +
  "(headless: --enable-unsafe-webgpu). In Node: install Debian's `chromium` and " +
  "`libvulkan1` packages (SwiftShader ICD at /usr/lib/chromium/vk_swiftshader_icd.json) " +
  "and set VK_ICD_FILENAMES to that file, or run `bash .ci/run` once.";

/** What the lab learned about the adapter it runs on. */
export interface AdapterSummary {
  description: string;
  /** True for CPU adapters (SwiftShader, fallback): the lab then picks small presets. */
  isFallback: boolean;
  limits: {
    maxStorageBufferBindingSize: number;
    maxBufferSize: number;
    maxStorageBuffersPerShaderStage: number;
    maxComputeWorkgroupStorageSize: number;
    maxComputeInvocationsPerWorkgroup: number;
    maxComputeWorkgroupsPerDimension: number;
  };
}

/** A device plus a summary of its adapter. */
export interface LabDevice {
  device: GPUDevice;
  adapter: AdapterSummary;
}

const LIMIT_NAMES = [
  "maxStorageBufferBindingSize",
  "maxBufferSize",
  "maxStorageBuffersPerShaderStage",
  "maxComputeWorkgroupStorageSize",
  "maxComputeInvocationsPerWorkgroup",
  "maxComputeWorkgroupsPerDimension",
] as const;

/**
 * Requests a high-performance adapter and a device with the adapter's own
 * compute limits.
 * @throws Error with NO_ADAPTER_HELP when no adapter is available.
 */
export async function requestLabDevice(gpu: GPU | undefined): Promise<LabDevice> {
  if (!gpu) throw new Error(NO_ADAPTER_HELP);
  const adapter = await gpu.requestAdapter({ powerPreference: "high-performance" });
  if (!adapter) throw new Error(NO_ADAPTER_HELP);
  const requiredLimits: Record<string, number> = {};
  for (const name of LIMIT_NAMES) requiredLimits[name] = adapter.limits[name];
  const device = await adapter.requestDevice({ requiredLimits });
  const info = adapter.info;
  const description =
    [info?.vendor, info?.architecture, info?.device, info?.description].filter(Boolean).join(" ") ||
    "unknown adapter";
  const isFallback =
    /swiftshader|llvmpipe|fallback|cpu/i.test(description) ||
    Boolean((info as { isFallbackAdapter?: boolean } | undefined)?.isFallbackAdapter) ||
    description === "unknown adapter";
  const limits = Object.fromEntries(
    LIMIT_NAMES.map((n) => [n, device.limits[n]]),
  ) as AdapterSummary["limits"];
  return { device, adapter: { description, isFallback, limits } };
}
