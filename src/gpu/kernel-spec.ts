/**
 * Kernel specs: every WGSL kernel is described once, by a KernelSpec in its
 * family's `spec.ts` (src/kernels/<family>/spec.ts): its uniform fields by
 * name and type (declaration order), its storage bindings by name, access and
 * element type (binding order), compile-time constants, workgroup size and
 * dispatch grid. Everything else is generated from the spec:
 *
 *   WGSL header, prepended to the shader body (shaders/<family>/<name>.wgsl):
 *     const WG: u32 = 64u;                         // workgroup size
 *     const HD: u32 = 8u;                          // compile-time constants, if any
 *     alias E = vec4f;                             // type parameters, if any
 *     struct Params { M: u32, scale: f32, }        // the uniform, fields in order
 *     @group(0) @binding(0) var<uniform> p: Params;
 *     @group(0) @binding(1) var<storage, read> x: array<f32>;   // bindings 1..n
 *   then the shared prelude (shaders/prelude.wgsl: index prologues, PRNG);
 *   the pipeline's bind group layout (explicit, from the binding accesses);
 *   the uniform packer: values by name, each checked against its type;
 *   the workgroup grid, from the uniform values.
 *
 * When the pipeline is first built, the body is checked against the spec:
 * it declares no binding, uniform struct or constant of its own, reads only
 * declared uniform fields (`p.NAME`), uses every binding, declares its entry
 * point with @workgroup_size(WG), and calls linear_id() when the grid spills
 * into y. Packing checks every field (missing, unknown, or a value its type
 * cannot hold). Every error names the kernel and the field (lab choice: fail
 * at setup, never as a wrong number at run time).
 *
 * Templating: `blocks` keeps the `//>>NAME … //<<NAME` blocks named in it and
 * drops the other marked blocks (one source, several variants); `consts`
 * become WGSL constants of the header and `types` WGSL type aliases (e.g. the
 * element type E = f32 or vec4f of a kernel's scalar and vec4 variants).
 * A kernel's variants share one source file: no hand-kept copies
 * (test/gpu/kernel-spec.test.ts checks this).
 */
import prelude from "../../shaders/prelude.wgsl?raw";
import type { Binding, GpuContext, Kernel, KernelCall } from "./context";

/** WGSL type of a uniform field (every field is 4 bytes). */
export type UniformType = "u32" | "i32" | "f32";

/** Access of a storage binding, as written in WGSL. */
type StorageAccess = "read" | "read_write";

/** A storage binding: access and array element type (WGSL, e.g. "f32", "vec4f", "i32"). */
export type StorageBinding = readonly [StorageAccess, string];

/** Uniform values of a spec, by field name. */
export type UniformValues<U> = { [K in keyof U]: number };

/** Buffers of a call, by binding name. */
export type Bindings<B> = { [K in keyof B]: Binding };

/**
 * How many workgroups a dispatch gets, computed from its uniform values:
 *   "spill"  ceil(threads / WG) workgroups along x, spread over x and y past
 *            maxComputeWorkgroupsPerDimension (the kernel uses linear_id());
 *   "x"      ceil(threads / WG) along x only (the kernel reads gid.x), an
 *            error past the limit;
 *   "fixed"  a workgroup count (1-D; `max` is the per-dimension limit).
 */
export type GridSpec<U> =
  | { kind: "spill"; threads(u: UniformValues<U>): number }
  | { kind: "x"; threads(u: UniformValues<U>): number }
  | { kind: "fixed"; workgroups(u: UniformValues<U>, max: number): number };

/** What a kernel's spec declares (see the file header). */
export interface KernelSpecInit<
  U extends Record<string, UniformType>,
  B extends Record<string, StorageBinding>,
> {
  /** Kernel name: pipeline cache key and the name in every error; unique per variant. */
  name: string;
  /** WGSL body: the shader file, without bindings, uniform struct or constants. */
  source: string;
  /** Entry point; default "main". */
  entry?: string;
  /** Uniform fields in declaration order (at least one). */
  uniforms: U;
  /** Storage bindings in binding order (binding 1, 2, …; binding 0 is the uniform). */
  bindings: B;
  /** Compile-time u32 constants emitted into the header (template parameters). */
  consts?: Record<string, number>;
  /** Type aliases emitted into the header (template parameters), e.g. { E: "vec4f" }. */
  types?: Record<string, string>;
  /** Names of the `//>>NAME … //<<NAME` blocks to keep; other marked blocks are dropped. */
  blocks?: readonly string[];
  /** Invocations per workgroup (1-D); the header's WG. */
  workgroupSize: number;
  /** Dispatch grid. */
  grid: GridSpec<U>;
}

/** A prepared dispatch of a spec'd kernel; its uniform is set by field name. */
export interface SpecCall<U> extends KernelCall {
  /** Current uniform values. */
  readonly values: Readonly<UniformValues<U>>;
  /**
   * Changes some uniform fields (by name) from the next submit on, and
   * recomputes the grid from the new values (unless the call fixed it).
   * @throws Error naming the kernel and the field on an unknown field or a bad value.
   */
  set(values: Partial<UniformValues<U>>): void;
}

/** Options of KernelSpec.call. */
export interface CallOptions {
  /** Workgroup counts to use instead of the spec's grid (tuning, tests). */
  workgroups?: [number, number?, number?];
  /**
   * A faster kernel that writes the same bits for the same uniforms and
   * bindings (a larger register tile of the same sums). The call starts on
   * this spec's kernel, builds the upgrade in the background
   * (GpuContext.kernelInBackground) and dispatches it, on its own grid, once
   * built; at once when it is built already. Lab choice: the first RL step
   * does not wait for the slow SwiftShader builds of the large tiles. A
   * failed build leaves the call on this spec's kernel.
   */
  upgrade?: KernelSpec;
}

const U32_MAX = 0xffffffff;

/**
 * Keeps the `//>>NAME … //<<NAME` blocks whose NAME is in `keep` and drops the
 * other marked blocks (unmarked code is kept); blocks may nest.
 */
function selectBlocks(code: string, keep: readonly string[]): string {
  const block = /\/\/>>(\w+)\n([\s\S]*?)\/\/<<\1\n/g;
  let prev = "";
  let cur = code;
  while (cur !== prev) {
    prev = cur;
    cur = cur.replace(block, (_m, name: string, body: string) => (keep.includes(name) ? body : ""));
  }
  return cur;
}

/**
 * Workgroup grid [x, y] for `groups` workgroups of a 1-D kernel that spills
 * into y: x·y ≥ groups with x, y ≤ `max` (kernels recombine the id with
 * linear_id()).
 * @throws Error when even max × max workgroups are too few.
 */
export function spillGrid(groups: number, max: number): [number, number] {
  const n = Math.max(1, groups);
  if (n <= max) return [n, 1];
  const y = Math.ceil(n / max);
  if (y > max) throw new Error(`${n} workgroups exceed ${max} × ${max}`);
  return [Math.ceil(n / y), y];
}

/** The WGSL text without line comments (for the build-time checks). */
function stripComments(code: string): string {
  return code.replace(/\/\/[^\n]*/g, "");
}

/** One kernel, described once (see the file header). Build with defineKernel. */
export class KernelSpec<
  U extends Record<string, UniformType> = Record<string, UniformType>,
  B extends Record<string, StorageBinding> = Record<string, StorageBinding>,
> {
  readonly name: string;
  readonly entry: string;
  readonly uniforms: Readonly<U>;
  readonly bindings: Readonly<B>;
  readonly consts: Readonly<Record<string, number>>;
  readonly types: Readonly<Record<string, string>>;
  readonly workgroupSize: number;
  readonly grid: GridSpec<U>;
  /** The shader source before block selection (shared by a kernel's variants). */
  readonly source: string;
  /** The shader body after block selection. */
  readonly body: string;
  /** Uniform field names in declaration order. */
  readonly fields: readonly (keyof U & string)[];
  /** Storage binding names in binding order (binding i + 1). */
  readonly bindingNames: readonly (keyof B & string)[];
  /** Bytes of the uniform buffer: 4 per field, rounded up to 16. */
  readonly uniformBytes: number;
  private checked = false;

  /** @throws Error naming the kernel on an empty uniform, a bad name, constant or workgroup size. */
  constructor(init: KernelSpecInit<U, B>) {
    this.name = init.name;
    this.entry = init.entry ?? "main";
    this.uniforms = init.uniforms;
    this.bindings = init.bindings;
    this.consts = init.consts ?? {};
    this.types = init.types ?? {};
    this.workgroupSize = init.workgroupSize;
    this.grid = init.grid;
    this.source = init.source;
    this.body = init.blocks ? selectBlocks(init.source, init.blocks) : init.source;
    this.fields = Object.keys(init.uniforms) as (keyof U & string)[];
    this.bindingNames = Object.keys(init.bindings) as (keyof B & string)[];
    this.uniformBytes = Math.ceil(Math.max(16, this.fields.length * 4) / 16) * 16;
    const ident = /^[A-Za-z]\w*$/;
    if (!this.fields.length) throw new Error(`${this.name}: a kernel needs at least one uniform`);
    const names = [
      ...this.fields,
      ...this.bindingNames,
      ...Object.keys(this.consts),
      ...Object.keys(this.types),
    ];
    for (const n of names) {
      if (!ident.test(n)) throw new Error(`${this.name}: '${n}' is not a WGSL identifier`);
    }
    for (const [k, v] of Object.entries(this.consts)) {
      if (!Number.isInteger(v) || v < 0 || v > U32_MAX)
        throw new Error(`${this.name}: constant ${k} must be a u32, got ${v}`);
    }
    for (const [k, t] of Object.entries(this.types)) {
      if (!/^[A-Za-z]\w*(<[\w, ]+>)?$/.test(t))
        throw new Error(`${this.name}: type ${k} must be a WGSL type name, got '${t}'`);
    }
    if (!Number.isInteger(this.workgroupSize) || this.workgroupSize < 1)
      throw new Error(`${this.name}: workgroupSize must be a positive integer`);
  }

  /** The generated WGSL header: WG, constants, type aliases, the Params struct, binding 0 (p) and bindings 1..n. */
  header(): string {
    const lines = [
      `// ---- generated from the kernel spec of ${this.name} (src/gpu/kernel-spec.ts) ----`,
      `const WG: u32 = ${this.workgroupSize}u;`,
    ];
    for (const [k, v] of Object.entries(this.consts)) lines.push(`const ${k}: u32 = ${v}u;`);
    for (const [k, t] of Object.entries(this.types)) lines.push(`alias ${k} = ${t};`);
    lines.push("struct Params {");
    for (const f of this.fields) lines.push(`  ${f}: ${this.uniforms[f]},`);
    lines.push("}");
    lines.push("@group(0) @binding(0) var<uniform> p: Params;");
    this.bindingNames.forEach((b, i) => {
      const [access, elem] = this.bindings[b];
      lines.push(`@group(0) @binding(${i + 1}) var<storage, ${access}> ${b}: array<${elem}>;`);
    });
    return `${lines.join("\n")}\n`;
  }

  /** The whole WGSL module: header, prelude, body. */
  code(): string {
    return `${this.header()}${prelude}\n// ---- ${this.name} ----\n${this.body}`;
  }

  /**
   * Checks the body against the spec (see the file header); runs once, when
   * the pipeline is first built, and in the spec tests.
   * @throws Error naming the kernel and the field, binding or constant at fault.
   */
  check(): void {
    if (this.checked) return;
    const src = stripComments(this.body);
    const own = src.match(/@binding\s*\(|@group\s*\(|var\s*<\s*uniform|\bstruct\s+Params\b/);
    if (own)
      throw new Error(
        `${this.name}: the shader declares '${own[0]}'; bindings and the uniform come from its spec`,
      );
    for (const c of ["WG", ...Object.keys(this.consts)]) {
      if (new RegExp(`\\b(const|override)\\s+${c}\\b`).test(src))
        throw new Error(`${this.name}: the shader declares constant ${c}, which its spec provides`);
    }
    for (const t of Object.keys(this.types)) {
      if (new RegExp(`\\b(alias|struct)\\s+${t}\\b`).test(src))
        throw new Error(`${this.name}: the shader declares type ${t}, which its spec provides`);
    }
    for (const m of src.matchAll(/\bp\.([A-Za-z_]\w*)/g)) {
      if (!(m[1] in this.uniforms))
        throw new Error(
          `${this.name}: the shader reads p.${m[1]}, which is not a uniform field of its spec (${this.fields.join(", ")})`,
        );
    }
    for (const b of this.bindingNames) {
      if (!new RegExp(`\\b${b}\\b`).test(src))
        throw new Error(`${this.name}: binding '${b}' of its spec is not used by the shader`);
    }
    const entry = new RegExp(`@workgroup_size\\s*\\(([^)]*)\\)\\s*fn\\s+${this.entry}\\s*\\(`);
    const wg = src.match(entry);
    if (wg?.[1].trim() !== "WG")
      throw new Error(
        `${this.name}: entry point '${this.entry}' must be declared with @workgroup_size(WG) (WG = ${this.workgroupSize} from its spec)`,
      );
    if (this.grid.kind === "spill" && !/\blinear_id\s*\(/.test(src))
      throw new Error(
        `${this.name}: its grid spills into y, so the shader must index with linear_id(gid, nwg)`,
      );
    this.checked = true;
  }

  /**
   * Packs uniform values into the uniform buffer's bytes (little-endian, 4
   * bytes per field in declaration order, zero-padded to uniformBytes).
   * @throws Error naming the kernel and the field when a field is missing or
   *   unknown, or its value does not fit its type (u32: integer in [0, 2³²);
   *   i32: integer in [−2³¹, 2³¹); f32: finite number).
   */
  pack(values: UniformValues<U>): ArrayBuffer {
    for (const k of Object.keys(values)) {
      if (!Object.hasOwn(this.uniforms, k))
        throw new Error(
          `${this.name}: '${k}' is not a uniform field (fields: ${this.fields.join(", ")})`,
        );
    }
    const buf = new ArrayBuffer(this.uniformBytes);
    const dv = new DataView(buf);
    this.fields.forEach((f, i) => {
      const v: unknown = values[f];
      const t = this.uniforms[f];
      if (v === undefined) throw new Error(`${this.name}: uniform field '${f}' (${t}) is missing`);
      const bad = () => new Error(`${this.name}: uniform field '${f}' is ${t}, got ${String(v)}`);
      if (typeof v !== "number") throw bad();
      if (t === "f32") {
        if (!Number.isFinite(v)) throw bad();
        dv.setFloat32(i * 4, v, true);
      } else if (t === "u32") {
        if (!Number.isInteger(v) || v < 0 || v > U32_MAX) throw bad();
        dv.setUint32(i * 4, v, true);
      } else {
        if (!Number.isInteger(v) || v < -0x80000000 || v > 0x7fffffff) throw bad();
        dv.setInt32(i * 4, v, true);
      }
    });
    return buf;
  }

  /**
   * Workgroup counts of a dispatch with these uniform values under a
   * per-dimension limit of `max` workgroups.
   * @throws Error naming the kernel when an "x" grid needs more than `max`.
   */
  workgroups(values: UniformValues<U>, max: number): [number, number, number] {
    const g = this.grid;
    if (g.kind === "fixed") return [g.workgroups(values, max), 1, 1];
    const threads = g.threads(values);
    const groups = Math.max(1, Math.ceil(threads / this.workgroupSize));
    if (g.kind === "x") {
      if (groups > max)
        throw new Error(
          `${this.name}: ${threads} invocations need ${groups} workgroups, over one dispatch dimension (${max})`,
        );
      return [groups, 1, 1];
    }
    try {
      return [...spillGrid(groups, max), 1];
    } catch (e) {
      throw new Error(`${this.name}: ${(e as Error).message}`);
    }
  }

  /**
   * Compiles the kernel once per context (cached under its name) with the
   * bind group layout of its spec.
   * @throws Error from check() when the body does not match the spec.
   */
  kernel(ctx: GpuContext): Kernel {
    this.check();
    return ctx.kernel(this.name, this.code(), this.entry, this.layout());
  }

  /** As kernel(), built in the background (GpuContext.kernelInBackground). */
  kernelInBackground(ctx: GpuContext): Promise<Kernel> {
    this.check();
    return ctx.kernelInBackground(this.name, this.code(), this.entry, this.layout());
  }

  /** Buffer binding types of the bind group: the uniform, then the spec's bindings in order. */
  private layout(): GPUBufferBindingType[] {
    const kinds: GPUBufferBindingType[] = this.bindingNames.map((b) =>
      this.bindings[b][0] === "read" ? "read-only-storage" : "storage",
    );
    return ["uniform", ...kinds];
  }

  /**
   * Prepares a dispatch (at setup: allocates one uniform buffer and one bind
   * group): buffers by binding name, uniform values by field name, the grid
   * from the spec (or `opts.workgroups`).
   * @throws Error naming the kernel and the binding or field on a missing or
   *   unknown binding, and as pack() and check() do.
   */
  call(
    ctx: GpuContext,
    bindings: Bindings<B>,
    values: UniformValues<U>,
    opts: CallOptions = {},
  ): SpecCall<U> {
    for (const k of Object.keys(bindings)) {
      if (!Object.hasOwn(this.bindings, k))
        throw new Error(
          `${this.name}: '${k}' is not a binding (bindings: ${this.bindingNames.join(", ")})`,
        );
    }
    const list = this.bindingNames.map((b) => {
      const buf = bindings[b];
      if (!buf) throw new Error(`${this.name}: binding '${b}' is missing`);
      return buf;
    });
    const max = ctx.adapter.limits.maxComputeWorkgroupsPerDimension;
    const fixed = opts.workgroups;
    const base = ctx.call(
      this.kernel(ctx),
      list,
      this.pack(values),
      fixed ?? this.workgroups(values, max),
    );
    // The spec whose grid the call dispatches: this one, then the upgrade once it is built.
    let grid: KernelSpec = this;
    const spec = this;
    const call = Object.assign(base, {
      values: { ...values } as UniformValues<U>,
      set(next: Partial<UniformValues<U>>): void {
        const merged = { ...call.values, ...next } as UniformValues<U>;
        base.setParams(spec.pack(merged));
        if (!fixed) base.workgroups = grid.workgroups(merged, max);
        call.values = merged;
      },
    });
    const up = opts.upgrade;
    if (up) {
      if (
        up.bindingNames.join() !== this.bindingNames.join() ||
        up.fields.join() !== this.fields.join()
      )
        throw new Error(`${this.name}: upgrade ${up.name} has other bindings or uniforms`);
      const swap = (k: Kernel) => {
        base.kernel = k;
        grid = up;
        if (!fixed) base.workgroups = up.workgroups(call.values as never, max);
      };
      const built = ctx.builtKernel(up.name);
      // A failed background build leaves the call on this kernel (the same bits, slower).
      if (built) swap(built);
      else up.kernelInBackground(ctx).then(swap, () => {});
    }
    return call;
  }
}

/** Declares a kernel (see the file header). */
export function defineKernel<
  const U extends Record<string, UniformType>,
  const B extends Record<string, StorageBinding>,
>(init: KernelSpecInit<U, B>): KernelSpec<U, B> {
  return new KernelSpec(init);
}
