/**
 * GpuContext: the one place that creates GPU objects. Everything is allocated
 * up front (llm.c style) and reused every step, so the number of allocations
 * stays flat after warm-up; `stats.buffersCreated` counts them for tests.
 *
 * Conventions for every kernel in shaders/ (the header that declares them is
 * generated from the kernel's spec, src/gpu/kernel-spec.ts):
 *   @group(0) @binding(0) var<uniform> p : Params;   // per-call parameters
 *   @group(0) @binding(1..n) storage buffers, in the order the call lists them.
 */
import type { AdapterSummary, LabDevice } from "./device";

/** A storage binding: a whole buffer or a 256-byte aligned subrange. */
export type Binding = GPUBuffer | { buffer: GPUBuffer; offset?: number; size?: number };

/** A compiled kernel (one WGSL entry point). */
export interface Kernel {
  readonly name: string;
  readonly pipeline: GPUComputePipeline;
}

/**
 * One prepared dispatch: kernel + bindings + its own uniform buffer. Build
 * once, run every step; `setParams` rewrites the uniform before the next submit.
 */
export interface KernelCall {
  /**
   * The kernel it dispatches. A call made with an upgrade (KernelSpec.call's
   * `upgrade`) swaps it for the upgrade once that pipeline is built in the
   * background: a kernel that writes the same bits, so the swap can come at
   * any point of a run.
   */
  kernel: Kernel;
  readonly bindGroup: GPUBindGroup;
  readonly params: GPUBuffer;
  workgroups: [number, number, number];
  setParams(data: ArrayBuffer | ArrayBufferView): void;
}

/** Allocation counters, read by the memory test and benchmarks. */
export interface GpuStats {
  buffersCreated: number;
  bytesCreated: number;
  pipelinesCreated: number;
  bindGroupsCreated: number;
  dispatches: number;
  submits: number;
  /** Copies read back to the CPU (readBytes calls). */
  readbacks: number;
}

/** Rounds a byte size up to WebGPU's 4-byte (and our 16-byte) granularity. */
function roundUp(n: number, m: number): number {
  return Math.ceil(n / m) * m;
}

/** Wraps a GPUDevice with cached pipelines, counted allocations and one open encoder. */
export class GpuContext {
  readonly device: GPUDevice;
  readonly adapter: AdapterSummary;
  readonly stats: GpuStats = {
    buffersCreated: 0,
    bytesCreated: 0,
    pipelinesCreated: 0,
    bindGroupsCreated: 0,
    dispatches: 0,
    submits: 0,
    readbacks: 0,
  };
  private kernels = new Map<string, Kernel>();
  /** Kernels building in the background (kernelInBackground), by key. */
  private building = new Map<string, Promise<Kernel>>();
  /** Starts of the background builds held by holdBackgroundBuilds (null: not holding). */
  private held: (() => void)[] | null = null;
  private staging = new Map<number, GPUBuffer[]>();
  private encoder: GPUCommandEncoder | null = null;
  private pass: GPUComputePassEncoder | null = null;
  private lostReason: string | null = null;
  private errors: string[] = [];

  constructor(lab: LabDevice) {
    this.device = lab.device;
    this.adapter = lab.adapter;
    // A lost device must surface as a clear error, not a hang.
    this.device.lost.then((info) => {
      this.lostReason = `GPU device lost (${info.reason}): ${info.message}`;
    });
    this.device.addEventListener?.("uncapturederror", (ev: Event) => {
      const err = (ev as GPUUncapturedErrorEvent).error;
      this.errors.push(err?.message ?? String(err));
    });
  }

  /** Throws if the device was lost or reported an uncaptured error. */
  checkHealthy(): void {
    if (this.lostReason) throw new Error(this.lostReason);
    if (this.errors.length) {
      const msg = this.errors.splice(0).join("\n");
      throw new Error(`WebGPU error: ${msg}`);
    }
  }

  /**
   * Creates a storage buffer of `bytes` (rounded up to 16).
   * @throws Error naming `label` when it exceeds the adapter's binding limit.
   */
  createBuffer(label: string, bytes: number, extraUsage = 0): GPUBuffer {
    const size = Math.max(16, roundUp(bytes, 16));
    const limit = this.adapter.limits.maxStorageBufferBindingSize;
    if (size > limit) {
      throw new Error(
        `Buffer '${label}' needs ${size} bytes, over the adapter's maxStorageBufferBindingSize of ${limit}`,
      );
    }
    this.stats.buffersCreated++;
    this.stats.bytesCreated += size;
    return this.device.createBuffer({
      label,
      size,
      usage:
        GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST | extraUsage,
    });
  }

  /** Creates a storage buffer holding `data`. */
  createBufferFrom(label: string, data: Float32Array | Int32Array | Uint32Array): GPUBuffer {
    const buf = this.createBuffer(label, data.byteLength);
    this.write(buf, data);
    return buf;
  }

  /** Queues a write of `data` at byte `offset` of `buffer` (lands before the next submit). */
  write(buffer: GPUBuffer, data: ArrayBufferView, offset = 0): void {
    this.device.queue.writeBuffer(buffer, offset, data.buffer, data.byteOffset, data.byteLength);
  }

  /**
   * Compiles (once) the entry point `entry` of `code`. `key` identifies the
   * variant (name plus any template substitutions). With `layout` (the
   * buffer binding type of bindings 0..n of group 0) the pipeline gets that
   * explicit layout, else "auto" (bindings the entry point does not use are
   * then left out of it). Spec'd kernels come through KernelSpec.kernel.
   * Compile errors surface as WebGPU errors at the next flush (checkHealthy).
   */
  kernel(key: string, code: string, entry = "main", layout?: GPUBufferBindingType[]): Kernel {
    const cached = this.kernels.get(key);
    if (cached) return cached;
    const module = this.device.createShaderModule({ label: key, code });
    const pipeline = this.device.createComputePipeline({
      label: key,
      layout: layout ? this.pipelineLayout(key, layout) : "auto",
      compute: { module, entryPoint: entry },
    });
    this.stats.pipelinesCreated++;
    const k = { name: key, pipeline };
    this.kernels.set(key, k);
    return k;
  }

  /**
   * Compiles `code` as kernel() does, but with createComputePipelineAsync, so
   * that the caller goes on (and the GPU runs other work) while it builds;
   * the kernel is cached under `key` once built. A key already built or in
   * flight is not compiled again. `layout` is required: a call made with one
   * kernel's bind group may then dispatch the other (equal explicit layouts
   * are compatible). Lab choice, for the register tiles whose SwiftShader
   * builds take 0.3–0.8 s each (docs/benchmarks-log.md, 2026-12-05).
   * @returns the kernel; rejects when the pipeline cannot be built.
   */
  kernelInBackground(
    key: string,
    code: string,
    entry: string,
    layout: GPUBufferBindingType[],
  ): Promise<Kernel> {
    const cached = this.kernels.get(key);
    if (cached) return Promise.resolve(cached);
    let pending = this.building.get(key);
    if (!pending) {
      const build = (): Promise<Kernel> => {
        const module = this.device.createShaderModule({ label: key, code });
        return this.device
          .createComputePipelineAsync({
            label: key,
            layout: this.pipelineLayout(key, layout),
            compute: { module, entryPoint: entry },
          })
          .then((pipeline) => {
            this.stats.pipelinesCreated++;
            const k = { name: key, pipeline };
            this.kernels.set(key, k);
            return k;
          });
      };
      const held = this.held;
      pending = (
        held ? new Promise<Kernel>((res, rej) => held.push(() => build().then(res, rej))) : build()
      ).finally(() => this.building.delete(key));
      this.building.set(key, pending);
    }
    return pending;
  }

  /** The kernel built under `key` (kernel() or a finished kernelInBackground), if any. */
  builtKernel(key: string): Kernel | undefined {
    return this.kernels.get(key);
  }

  /**
   * Holds the background builds asked for from now on until
   * releaseBackgroundBuilds(): on a CPU adapter they share its cores with the
   * work in hand, so a run holds them while it prepares its first step and
   * releases them once that step is done (LabRun.warmUp, stepVariants).
   */
  holdBackgroundBuilds(): void {
    this.held ??= [];
  }

  /** Starts the background builds held since holdBackgroundBuilds() (none held: nothing happens). */
  releaseBackgroundBuilds(): void {
    const held = this.held;
    this.held = null;
    for (const start of held ?? []) start();
  }

  /**
   * Waits until every kernel building in the background (kernelInBackground)
   * is built or has failed; starts the held ones first.
   */
  async backgroundBuilds(): Promise<void> {
    this.releaseBackgroundBuilds();
    await Promise.allSettled([...this.building.values()]);
  }

  /** An explicit pipeline layout: one bind group of buffers of these types at bindings 0..n. */
  private pipelineLayout(label: string, layout: GPUBufferBindingType[]): GPUPipelineLayout {
    return this.device.createPipelineLayout({
      label,
      bindGroupLayouts: [
        this.device.createBindGroupLayout({
          label,
          entries: layout.map((type, binding) => ({
            binding,
            visibility: GPUShaderStage.COMPUTE,
            buffer: { type },
          })),
        }),
      ],
    });
  }

  /** Reports shader compile messages for `code` (async; use in tests and at start-up). */
  async compileMessages(code: string): Promise<string[]> {
    const module = this.device.createShaderModule({ code });
    const info = await module.getCompilationInfo();
    return info.messages
      .filter((m) => m.type === "error")
      .map((m) => `${m.lineNum}:${m.linePos} ${m.message}`);
  }

  /**
   * Prepares a dispatch. `params` fills binding 0 (a uniform, ≥ 16 bytes);
   * `bindings` fill 1..n in order. Allocates one uniform buffer and one bind
   * group: do this at setup, not per step.
   */
  call(
    kernel: Kernel,
    bindings: Binding[],
    params: ArrayBuffer | ArrayBufferView,
    workgroups: [number, number?, number?],
  ): KernelCall {
    const bytes = params instanceof ArrayBuffer ? params.byteLength : params.byteLength;
    const paramsBuf = this.device.createBuffer({
      label: `${kernel.name}.params`,
      size: Math.max(16, roundUp(bytes, 16)),
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
    this.stats.buffersCreated++;
    const entries: GPUBindGroupEntry[] = [{ binding: 0, resource: { buffer: paramsBuf } }];
    bindings.forEach((b, i) => {
      // GPUBuffer has no `buffer` field; a subrange binding does.
      const resource = "buffer" in b ? b : { buffer: b };
      entries.push({ binding: i + 1, resource });
    });
    const bindGroup = this.device.createBindGroup({
      label: kernel.name,
      layout: kernel.pipeline.getBindGroupLayout(0),
      entries,
    });
    this.stats.bindGroupsCreated++;
    const device = this.device;
    const call: KernelCall = {
      kernel,
      bindGroup,
      params: paramsBuf,
      workgroups: [workgroups[0], workgroups[1] ?? 1, workgroups[2] ?? 1],
      setParams(data) {
        const view = data instanceof ArrayBuffer ? new Uint8Array(data) : data;
        device.queue.writeBuffer(paramsBuf, 0, view.buffer, view.byteOffset, view.byteLength);
      },
    };
    call.setParams(params);
    return call;
  }

  /** Records a prepared dispatch into the open compute pass (opened on demand). */
  run(call: KernelCall): void {
    const [x, y, z] = call.workgroups;
    if (x === 0 || y === 0 || z === 0) return;
    const max = this.adapter.limits.maxComputeWorkgroupsPerDimension;
    if (x > max || y > max || z > max) {
      throw new Error(
        `Kernel '${call.kernel.name}' dispatch ${x}×${y}×${z} exceeds maxComputeWorkgroupsPerDimension ${max}`,
      );
    }
    if (!this.encoder) this.encoder = this.device.createCommandEncoder();
    if (!this.pass) this.pass = this.encoder.beginComputePass();
    this.pass.setPipeline(call.kernel.pipeline);
    this.pass.setBindGroup(0, call.bindGroup);
    this.pass.dispatchWorkgroups(x, y, z);
    this.stats.dispatches++;
  }

  /** Records a buffer-to-buffer copy (closes the open compute pass). */
  copy(src: GPUBuffer, srcOffset: number, dst: GPUBuffer, dstOffset: number, bytes: number): void {
    this.endPass();
    if (!this.encoder) this.encoder = this.device.createCommandEncoder();
    this.encoder.copyBufferToBuffer(src, srcOffset, dst, dstOffset, bytes);
  }

  /** Records a zero fill of a buffer range (closes the open compute pass). */
  clear(buffer: GPUBuffer, offset = 0, bytes?: number): void {
    this.endPass();
    if (!this.encoder) this.encoder = this.device.createCommandEncoder();
    this.encoder.clearBuffer(buffer, offset, bytes);
  }

  private endPass(): void {
    if (this.pass) {
      this.pass.end();
      this.pass = null;
    }
  }

  /** Submits everything recorded so far (one submit per phase keeps round trips low). */
  flush(): void {
    this.checkHealthy();
    this.endPass();
    if (this.encoder) {
      this.device.queue.submit([this.encoder.finish()]);
      this.encoder = null;
      this.stats.submits++;
    }
  }

  /** Waits until the GPU has finished all submitted work. */
  async sync(): Promise<void> {
    this.flush();
    await this.device.queue.onSubmittedWorkDone();
    this.checkHealthy();
  }

  private takeStaging(size: number): GPUBuffer {
    const pool = this.staging.get(size);
    if (pool?.length) return pool.pop()!;
    this.stats.buffersCreated++;
    return this.device.createBuffer({
      label: `staging.${size}`,
      size,
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
  }

  private giveStaging(buf: GPUBuffer): void {
    const list = this.staging.get(buf.size) ?? [];
    list.push(buf);
    this.staging.set(buf.size, list);
  }

  /**
   * Copies `bytes` from `buffer` at `offset` to the CPU (flushes pending work).
   * Staging buffers are pooled by size, so repeated reads allocate nothing new.
   */
  async readBytes(buffer: GPUBuffer, offset = 0, bytes?: number): Promise<ArrayBuffer> {
    const size = roundUp(bytes ?? buffer.size - offset, 4);
    const stagingSize = roundUp(size, 256);
    const staging = this.takeStaging(stagingSize);
    this.stats.readbacks++;
    this.copy(buffer, offset, staging, 0, size);
    this.flush();
    try {
      await staging.mapAsync(GPUMapMode.READ, 0, size);
    } catch (e) {
      this.checkHealthy();
      throw e;
    }
    const out = staging.getMappedRange(0, size).slice(0);
    staging.unmap();
    this.giveStaging(staging);
    this.checkHealthy();
    return out;
  }

  /** Reads `count` f32 values starting at element `start`. */
  async readF32(buffer: GPUBuffer, start = 0, count?: number): Promise<Float32Array> {
    const n = count ?? buffer.size / 4 - start;
    return new Float32Array(await this.readBytes(buffer, start * 4, n * 4));
  }

  /** Reads `count` i32 values starting at element `start`. */
  async readI32(buffer: GPUBuffer, start = 0, count?: number): Promise<Int32Array> {
    const n = count ?? buffer.size / 4 - start;
    return new Int32Array(await this.readBytes(buffer, start * 4, n * 4));
  }

  /** Releases the device (tests call this in afterAll). */
  destroy(): void {
    this.device.destroy();
  }
}
