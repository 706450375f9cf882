/**
 * A small builder of ONNX graphs over the `onnx-proto` message classes
 * (protobufjs code generated from the ONNX project's onnx.proto3, ONNX
 * v1.10.2, IR version 8): nodes with fresh output names, initializers stored
 * as little-endian raw data, and the model's final encoding. No operator
 * semantics live here; src/onnx/export.ts writes the tiny VLM with it.
 */
import onnxProto from "onnx-proto";

const { onnx } = onnxProto;

/** The ONNX IR version written (ONNX 1.10 to 1.12; the version onnx-proto 8.0.1 describes). */
export const ONNX_IR_VERSION = 8;

/** The default-domain operator set the graph is written against (LayerNormalization needs 17). */
export const ONNX_OPSET = 17;

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

type Attr = number | number[] | string;

/** Bytes of a typed array in little-endian order (a copy). */
function rawBytes(data: Float32Array | Int32Array | BigInt64Array): Uint8Array {
  if (!LITTLE_ENDIAN_HOST)
    throw new Error("ONNX export needs a little-endian host (ONNX raw_data is little-endian)");
  return new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
}

/** One graph input or output: name, element type and dims (a string is a symbolic dim). */
export interface ValueSpec {
  name: string;
  type: "float32" | "int32";
  dims: Array<number | string>;
}

function valueInfo(v: ValueSpec): InstanceType<typeof onnx.ValueInfoProto> {
  const elemType =
    v.type === "float32" ? onnx.TensorProto.DataType.FLOAT : onnx.TensorProto.DataType.INT32;
  return onnx.ValueInfoProto.create({
    name: v.name,
    type: {
      tensorType: {
        elemType,
        shape: {
          dim: v.dims.map((d) => (typeof d === "string" ? { dimParam: d } : { dimValue: d })),
        },
      },
    },
  });
}

function attribute(name: string, v: Attr): InstanceType<typeof onnx.AttributeProto> {
  const T = onnx.AttributeProto.AttributeType;
  if (typeof v === "string")
    return onnx.AttributeProto.create({ name, type: T.STRING, s: new TextEncoder().encode(v) });
  if (Array.isArray(v)) return onnx.AttributeProto.create({ name, type: T.INTS, ints: v });
  if (Number.isInteger(v)) return onnx.AttributeProto.create({ name, type: T.INT, i: v });
  return onnx.AttributeProto.create({ name, type: T.FLOAT, f: v });
}

/**
 * Collects nodes and initializers; `op` returns the node's output name(s).
 * Integer-valued number attributes are written as INT, others as FLOAT (so a
 * FLOAT attribute must not be integer-valued; the tiny VLM has only epsilon).
 */
export class GraphBuilder {
  private readonly nodes: Array<InstanceType<typeof onnx.NodeProto>> = [];
  private readonly inits: Array<InstanceType<typeof onnx.TensorProto>> = [];
  private readonly names = new Set<string>();
  private counter = 0;

  /** A name not used before in this graph, built from `base`. */
  fresh(base: string): string {
    let n = base;
    while (this.names.has(n)) n = `${base}_${this.counter++}`;
    this.names.add(n);
    return n;
  }

  /** Adds a float32 initializer of the given dims (row-major data); returns its name. */
  floats(name: string, dims: number[], data: Float32Array): string {
    const size = dims.reduce((a, b) => a * b, 1);
    if (data.length !== size)
      throw new Error(`initializer ${name}: ${data.length} values for dims [${dims.join(", ")}]`);
    const n = this.fresh(name);
    this.inits.push(
      onnx.TensorProto.create({
        name: n,
        dims,
        dataType: onnx.TensorProto.DataType.FLOAT,
        rawData: rawBytes(data),
      }),
    );
    return n;
  }

  /** Adds a 1-D int64 initializer (shapes, axes, slice bounds); returns its name. */
  ints(name: string, values: number[]): string {
    const n = this.fresh(name);
    this.inits.push(
      onnx.TensorProto.create({
        name: n,
        dims: [values.length],
        dataType: onnx.TensorProto.DataType.INT64,
        rawData: rawBytes(BigInt64Array.from(values, (v) => BigInt(v))),
      }),
    );
    return n;
  }

  /** Adds a scalar (rank-0) float32 initializer; returns its name. */
  scalar(name: string, value: number): string {
    const n = this.fresh(name);
    this.inits.push(
      onnx.TensorProto.create({
        name: n,
        dims: [],
        dataType: onnx.TensorProto.DataType.FLOAT,
        rawData: rawBytes(Float32Array.of(value)),
      }),
    );
    return n;
  }

  /** Adds a scalar (rank-0) int32 initializer; returns its name. */
  scalarInt32(name: string, value: number): string {
    const n = this.fresh(name);
    this.inits.push(
      onnx.TensorProto.create({
        name: n,
        dims: [],
        dataType: onnx.TensorProto.DataType.INT32,
        rawData: rawBytes(Int32Array.of(value)),
      }),
    );
    return n;
  }

  /**
   * Adds a node of the default domain.
   * @param output the output's name (made fresh); default a fresh name from `name`.
   * @returns the output's name (use `opMulti` for several outputs).
   */
  op(
    opType: string,
    inputs: string[],
    name: string,
    attrs: Record<string, Attr> = {},
    output?: string,
  ): string {
    return this.opMulti(opType, inputs, name, 1, attrs, output ? [output] : undefined)[0];
  }

  /** Adds a node with `count` outputs; returns their names. */
  opMulti(
    opType: string,
    inputs: string[],
    name: string,
    count: number,
    attrs: Record<string, Attr> = {},
    outputs?: string[],
  ): string[] {
    const outs = outputs
      ? outputs.map((o) => this.fresh(o))
      : Array.from({ length: count }, (_, i) => this.fresh(count > 1 ? `${name}_${i}` : name));
    this.nodes.push(
      onnx.NodeProto.create({
        opType,
        name: this.fresh(`${name}/${opType}`),
        input: inputs,
        output: outs,
        attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)),
      }),
    );
    return outs;
  }

  /** Marks names as taken (graph inputs). */
  reserve(...names: string[]): void {
    for (const n of names) {
      if (this.names.has(n)) throw new Error(`ONNX name ${n} is already used`);
      this.names.add(n);
    }
  }

  /**
   * Encodes the model (IR ONNX_IR_VERSION, default-domain opset ONNX_OPSET).
   * @param metadata written as the model's metadata_props (string → string).
   * @returns the serialized ModelProto.
   */
  encode(
    graphName: string,
    inputs: ValueSpec[],
    outputs: ValueSpec[],
    metadata: Record<string, string>,
    producer: { name: string; version: string },
  ): Uint8Array {
    const model = onnx.ModelProto.create({
      irVersion: ONNX_IR_VERSION,
      opsetImport: [{ domain: "", version: ONNX_OPSET }],
      producerName: producer.name,
      producerVersion: producer.version,
      graph: {
        name: graphName,
        node: this.nodes,
        initializer: this.inits,
        input: inputs.map(valueInfo),
        output: outputs.map(valueInfo),
      },
      metadataProps: Object.entries(metadata).map(([key, value]) => ({ key, value })),
    });
    return onnx.ModelProto.encode(model).finish();
  }
}
