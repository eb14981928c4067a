// The `io-onnx` fuzz target: readOnnxModel on mutated ONNX models (a LayerNormalization model as
// web/bench/onnx-model.mjs writes it, the tiny decomposed GPT-2, a norm in an If branch, a model
// with no norm: tests/data/onnx/) and on graphs nested in If nodes up to 30,000 deep. Only the
// package's FormatError of format onnx, naming the bytes, stating a problem of ../format-problems.mjs.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { layerNormalizationModelBytes } from '../../../web/bench/onnx-model.mjs';
import { bytesArbitrary } from '../arbitraries.mjs';
import { checkAsync } from '../checks.mjs';
import { concat, utf8 } from '../../kit/checkpoints/index.mjs';

const DATA = new URL('../../data/onnx/', import.meta.url);

function samples() {
  const gamma = Float32Array.from({ length: 8 }, (_, i) => 1 + i / 8);
  return [
    layerNormalizationModelBytes({ shape: ['N', 8], scale: { data: gamma }, bias: { data: gamma } }),
    ...['gpt2-opset14.onnx', 'norm-in-if.onnx', 'no-norm.onnx'].map(
      (f) => new Uint8Array(readFileSync(new URL(f, DATA))),
    ),
  ];
}

const varint = (n) => {
  const out = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return Uint8Array.from(out);
};
const field = (number, payload) => concat([varint(number * 8 + 2), varint(payload.length), payload]);

/**
 * A model whose graph holds an If whose then_branch holds an If …, `depth` deep. Each level is a
 * prefix of the next (its If's op_type and branch come before the graph inside), so the bytes are
 * written outside in, in one pass: lengths from the innermost graph out, then the prefixes.
 */
const deepOnnxArbitrary = fc.integer({ min: 1, max: 30_000 }).map((depth) => {
  const opType = field(4, utf8('If'));
  const name = field(1, utf8('then_branch'));
  const graphs = [0]; // the length of the graph at each level, the innermost empty
  const parts = [];
  for (let i = 1; i <= depth; i++) {
    const branch = 1 + varint(graphs[i - 1]).length + graphs[i - 1];
    const attribute = name.length + branch;
    const node = opType.length + 1 + varint(attribute).length + attribute;
    graphs.push(1 + varint(node).length + node);
    parts.push([node, attribute, graphs[i - 1]]);
  }
  const opset = field(8, concat([field(1, new Uint8Array(0)), Uint8Array.of(0x10, 17)]));
  const model = [Uint8Array.of(0x08, 8, 0x3a), varint(graphs[depth])];
  const size = (list) => list.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(size(model) + graphs[depth] + opset.length);
  let at = 0;
  const put = (bytes) => {
    out.set(bytes, at);
    at += bytes.length;
  };
  model.forEach(put);
  for (let i = depth - 1; i >= 0; i--) {
    const [node, attribute, inner] = parts[i];
    put(Uint8Array.of(0x0a));
    put(varint(node));
    put(opType);
    put(Uint8Array.of(0x2a));
    put(varint(attribute));
    put(name);
    put(Uint8Array.of(0x32));
    put(varint(inner));
  }
  put(opset);
  return out;
});

export function ioOnnxTarget({ onnx }) {
  const models = samples();
  const inputs = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...models).chain((m) => bytesArbitrary(m)) },
    { weight: 1, arbitrary: deepOnnxArbitrary },
  );
  return {
    name: 'io-onnx',
    async: true,
    property: () =>
      fc.asyncProperty(inputs, (b) =>
        checkAsync('readOnnxModel', () => onnx.readOnnxModel(b), {
          formats: ['onnx'],
          source: `Uint8Array (${b.length} bytes)`,
        }),
      ),
  };
}
