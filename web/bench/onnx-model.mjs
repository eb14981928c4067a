// ONNX LayerNormalization models, written with a tiny protobuf writer: the benchmark's onnxruntime
// candidates (candidates.mjs) and the ONNX-semantics test (tests/core/onnx.test.ts) build theirs here.
// Browser-compatible ES module: no Node built-ins, no bare imports.

class PB {
  constructor() {
    this.parts = [];
  }
  raw(bytes) {
    this.parts.push(bytes);
    return this;
  }
  varint(v) {
    let n = BigInt.asUintN(64, BigInt(v));
    const b = [];
    do {
      let byte = Number(n & 0x7fn);
      n >>= 7n;
      if (n) byte |= 0x80;
      b.push(byte);
    } while (n);
    return this.raw(Uint8Array.from(b));
  }
  tag(field, wire) {
    return this.varint((field << 3) | wire);
  }
  int(field, v) {
    return this.tag(field, 0).varint(v);
  }
  float(field, v) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, v, true);
    return this.tag(field, 5).raw(b);
  }
  bytes(field, bytes) {
    return this.tag(field, 2).varint(bytes.length).raw(bytes);
  }
  string(field, s) {
    return this.bytes(field, new TextEncoder().encode(s));
  }
  msg(field, pb) {
    return this.bytes(field, pb.finish());
  }
  finish() {
    let len = 0;
    for (const p of this.parts) len += p.length;
    const out = new Uint8Array(len);
    let o = 0;
    for (const p of this.parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
}

const ONNX_FLOAT = 1;
const ATTR_FLOAT = 1;
const ATTR_INT = 2;

/** A ValueInfoProto of a float tensor; a string dimension is symbolic. */
function valueInfo(name, dims) {
  const shape = new PB();
  for (const dim of dims) {
    const dp = new PB();
    if (typeof dim === 'string') dp.string(2, dim);
    else dp.int(1, dim);
    shape.msg(1, dp);
  }
  const tensorType = new PB().int(1, ONNX_FLOAT).msg(2, shape);
  const type = new PB().msg(1, tensorType);
  return new PB().string(1, name).msg(2, type);
}

/** A float TensorProto initializer of the given dims (default: a vector). */
function initializer(name, data, dims = [data.length]) {
  const t = new PB();
  for (const dim of dims) t.int(1, dim);
  t.int(2, ONNX_FLOAT).string(8, name);
  return t.bytes(9, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
}

/**
 * ModelProto (opset 17, ir_version 8) for Y[, Mean, InvStdDev] = LayerNormalization(X, Scale[, B]).
 * `shape`: X's dims (a string dim is symbolic); `scale`, `bias`: { data: Float32Array, dims }
 * initializers (`bias` null: no B input); `stats`: also output Mean and InvStdDev, whose shape is
 * X's up to `axis`, then ones; `producer`: the model's producer_name.
 */
export function layerNormalizationModelBytes({
  shape,
  axis = -1,
  epsilon = 1e-5,
  scale,
  bias = null,
  stats = false,
  producer = 'layernorm-wasm',
}) {
  const rank = shape.length;
  const first = axis < 0 ? axis + rank : axis;
  const node = new PB().string(1, 'X').string(1, 'Scale');
  if (bias) node.string(1, 'B');
  node.string(2, 'Y');
  if (stats) node.string(2, 'Mean').string(2, 'InvStdDev');
  node.string(3, 'ln').string(4, 'LayerNormalization');
  node.msg(5, new PB().string(1, 'axis').int(3, axis).int(20, ATTR_INT));
  node.msg(5, new PB().string(1, 'epsilon').float(2, epsilon).int(20, ATTR_FLOAT));
  const graph = new PB().msg(1, node).string(2, 'layernorm');
  graph.msg(5, initializer('Scale', scale.data, scale.dims));
  if (bias) graph.msg(5, initializer('B', bias.data, bias.dims));
  graph.msg(11, valueInfo('X', shape));
  graph.msg(12, valueInfo('Y', shape));
  if (stats) {
    const statsShape = shape.map((dim, i) => (i < first ? dim : 1));
    graph.msg(12, valueInfo('Mean', statsShape));
    graph.msg(12, valueInfo('InvStdDev', statsShape));
  }
  const opset = new PB().string(1, '').int(2, 17);
  return new PB().int(1, 8).string(2, producer).msg(8, opset).msg(7, graph).finish();
}

/**
 * The benchmark's model: Y = LayerNormalization(X, Scale[, B]) with axis = −1, X of [N, d] with a
 * symbolic batch dim; Scale and B are vectors (bias-free: no B input).
 */
export function layerNormModelBytes(d, gamma, beta, eps) {
  return layerNormalizationModelBytes({
    shape: ['N', d],
    epsilon: eps,
    scale: { data: gamma, dims: [d] },
    bias: beta ? { data: beta, dims: [d] } : null,
    producer: 'layernorm-bench',
  });
}

/**
 * ModelProto of one node: `op` (in `domain`, '' for ONNX) on runtime inputs `inputs` (name →
 * dims; a string dim is symbolic) and float initializers `weights` (name → Float32Array, as
 * vectors), in the order of `order` (a name '' leaves that input out), with float/int attributes
 * `attributes`, one output `Y` of `outputDims`; `opset` is the ONNX domain's version.
 */
export function nodeModelBytes({
  op,
  domain = '',
  inputs,
  weights = {},
  order,
  attributes = {},
  outputDims,
  opset = 17,
}) {
  const node = new PB();
  for (const name of order) node.string(1, name);
  node.string(2, 'Y').string(3, 'n').string(4, op);
  if (domain) node.string(7, domain);
  for (const [name, value] of Object.entries(attributes)) {
    const a = new PB().string(1, name);
    if (Number.isInteger(value) && name !== 'epsilon') a.int(3, value).int(20, ATTR_INT);
    else a.float(2, value).int(20, ATTR_FLOAT);
    node.msg(5, a);
  }
  const graph = new PB().msg(1, node).string(2, op);
  for (const [name, data] of Object.entries(weights)) graph.msg(5, initializer(name, data));
  for (const [name, dims] of Object.entries(inputs)) graph.msg(11, valueInfo(name, dims));
  graph.msg(12, valueInfo('Y', outputDims));
  const model = new PB().int(1, 8).string(2, 'layernorm-bench').msg(8, new PB().string(1, '').int(2, opset));
  if (domain) model.msg(8, new PB().string(1, domain).int(2, 1));
  return model.msg(7, graph).finish();
}

/** ModelProto of Y = LayerNormalization(Add(X, R), Scale, B): the unfused residual add and norm. */
export function addLayerNormModelBytes(d, gamma, beta, eps) {
  const add = new PB().string(1, 'X').string(1, 'R').string(2, 'H').string(3, 'add').string(4, 'Add');
  const ln = new PB().string(1, 'H').string(1, 'Scale').string(1, 'B').string(2, 'Y').string(3, 'ln');
  ln.string(4, 'LayerNormalization');
  ln.msg(5, new PB().string(1, 'axis').int(3, -1).int(20, ATTR_INT));
  ln.msg(5, new PB().string(1, 'epsilon').float(2, eps).int(20, ATTR_FLOAT));
  const graph = new PB().msg(1, add).msg(1, ln).string(2, 'add-layernorm');
  graph.msg(5, initializer('Scale', gamma)).msg(5, initializer('B', beta));
  graph
    .msg(11, valueInfo('X', ['N', d]))
    .msg(11, valueInfo('R', ['N', d]))
    .msg(12, valueInfo('Y', ['N', d]));
  return new PB()
    .int(1, 8)
    .string(2, 'layernorm-bench')
    .msg(8, new PB().string(1, '').int(2, 17))
    .msg(7, graph)
    .finish();
}
