// The FormatErrors of web/docs/errors.md that the readers' own suites do not pin down: rows 57,
// 63, 64, 68 and 77's cases, and P1–P53 ("Files and text: every other problem"), each an input
// that produces exactly the message the row quotes. Main thread only; the loaders and
// readNpyHeader reject (flag async), readNpy and the text parsers throw. Cases as in numeric.mjs.
import {
  NPY_MAGIC,
  buildGguf,
  buildSafetensors,
  concat,
  f32Bytes,
  ggufHead,
  ggufString,
  ggufTensorFile,
  le32,
  le64,
  npy,
  npyExact,
  rawNpy,
  rawSafetensors,
  toBytes,
  utf8,
} from '../checkpoints/index.mjs';

const SYNC = { on: 'main' };
const ASYNC = { on: 'main', async: true };

const vector = (n) => npy(new Float32Array(n).fill(1), [n]);
const dict = (fields) => rawNpy(`{${fields}}`, new Uint8Array(4));
const C_ORDER = "'fortran_order': False, 'shape': (1,)";
const v1 = (...bytes) => concat([NPY_MAGIC, Uint8Array.of(...bytes)]);
const f32 = (name, values) => ({
  name,
  dtype: 'F32',
  shape: [values.length],
  data: f32Bytes(Float32Array.from(values)),
});
const safetensors = (...tensors) => toBytes(buildSafetensors(tensors).file);
const twoNorms = () => safetensors(f32('a.norm.weight', [1, 2]), f32('b.norm.weight', [3, 4]));
const lnf = () => safetensors(f32('ln_f.bias', [0, 0]), f32('ln_f.weight', [1, 1]));
/** A compact safetensors header (no padding, no metadata), as a hand-written file has it. */
const compact = (name, entry, data) => rawSafetensors(JSON.stringify({ [name]: entry }), data);

const P = (id, name, call, message, flags = SYNC) => [id, name, call, 'FormatError', message, flags];

// prettier-ignore
export const FILE_CASES = [
  ['57', 'a checkpoint with no LayerNorm tensor', (c) => c.io.loadLayerNormWeights(compact('wte.weight', { dtype: 'F32', shape: [2], data_offsets: [0, 8] }, new Uint8Array(8)),), 'FormatError', 'Uint8Array (79 bytes): invalid safetensors: no LayerNorm tensors found (looked for ln_f.weight, transformer.ln_f.weight, output_norm.weight or a single *norm*/ln_f weight); tensors: "wte.weight"', ASYNC],
  ['57', 'a weight name that is not there', (c) => c.io.loadLayerNormWeights(compact('ln_f.weight', { dtype: 'F32', shape: [2], data_offsets: [0, 8] }, new Uint8Array(8)), { weight: 'nope' },), 'FormatError', 'Uint8Array (80 bytes): invalid safetensors: no tensor named "nope" (weight); candidates: "ln_f.weight"', ASYNC],
  ['63', 'a truncated .npy', (c) => c.io.readNpy(npy(Float32Array.of(1, 2, 3, 4)).slice(0, -4), 'x.npy'), 'FormatError', 'x.npy: invalid npy: shape (4) of float32 needs 16 data bytes, the file has 12', SYNC],
  ['64', 'a .npy matrix where a weight vector is expected', (c) => c.io.loadLayerNormWeights(npy(new Float32Array(6), [2, 3])), 'FormatError', 'Uint8Array (152 bytes): invalid npy: expected a vector of shape (d,), got shape (2, 3)', ASYNC],
  ['68', 'text activations with ragged rows', (c) => c.io.parseActivationsText('1 2 3\n4 5', 'x.txt'), 'FormatError', 'x.txt: invalid text: ragged rows: expected 3 numbers per row like line 1, got 2 (line 2, column 4)', SYNC],
  ['68', 'text activations with no rows', (c) => c.io.parseActivationsText('# nothing\n'), 'FormatError', 'invalid text: expected at least one row of numbers, got none (line 2, column 1)', SYNC],
  ['77', 'a file: URL', (c) => c.io.loadLayerNormWeights('file:///etc/passwd'), 'TypeError', 'expected an http: or https: URL, got "file:///etc/passwd" (for a local file pass a Blob/File; in Node use await fs.openAsBlob(path))', ASYNC],
  ['77', 'a local path where a URL is expected', (c) => c.io.openByteSource('model.safetensors'), 'TypeError', 'expected an http: or https: URL, got "model.safetensors"', SYNC],
  // .npy
  P('P1', 'a .npy of 8 bytes', (c) => c.io.readNpy(v1(1, 0), 'x.npy'), 'x.npy: invalid npy: expected a 10-byte preamble, got 8 bytes'),
  P('P2', 'a version 2.0 .npy of 10 bytes', (c) => c.io.readNpy(v1(2, 0, 16, 0), 'x.npy'), 'x.npy: invalid npy: expected a 12-byte preamble for version 2, got 10 bytes'),
  P('P3', 'a header length of 2,000,000', (c) => c.io.readNpy(concat([v1(2, 0), le32(2_000_000)]), 'x.npy'), 'x.npy: invalid npy: header length 2000000 exceeds the 1048576-byte limit'),
  P('P4', 'format version 4.0', (c) => c.io.readNpy(v1(4, 0, 0, 0), 'x.npy'), 'x.npy: invalid npy: expected format version 1, 2 or 3, got 4.0'),
  P('P5', 'a string never closed', (c) => c.io.readNpy(npyExact("{'descr"), 'x.npy'), 'x.npy: invalid npy: unterminated string in the header'),
  P('P6', 'an unexpected character', (c) => c.io.readNpy(npyExact('{@}'), 'x.npy'), 'x.npy: invalid npy: unexpected "@" in the header at offset 1'),
  P('P7', 'a bare word', (c) => c.io.readNpy(npyExact("{'descr': abc}"), 'x.npy'), 'x.npy: invalid npy: unexpected "abc" in the header'),
  P('P8', 'text after the dict', (c) => c.io.readNpy(npyExact('{} xyz'), 'x.npy'), 'x.npy: invalid npy: unexpected "xyz" after the header dict'),
  P('P9', 'no colon', (c) => c.io.readNpy(npyExact("{'descr' '<f4'}"), 'x.npy'), 'x.npy: invalid npy: expected "key: value" in the header dict at offset 9'),
  P('P10', 'no comma', (c) => c.io.readNpy(npyExact("{'a': 1 'b': 2}"), 'x.npy'), `x.npy: invalid npy: expected "," or "}" in the header at offset 8, got "'"`),
  P('P11', 'a header length past the file', (c) => c.io.readNpy(concat([v1(1, 0, 100, 0), utf8('{')]), 'x.npy'), 'x.npy: invalid npy: expected a 110-byte header, the file has 11 bytes'),
  P('P12', 'a header that is a list', (c) => c.io.readNpy(npyExact('[1, 2]'), 'x.npy'), 'x.npy: invalid npy: expected the header to be a dict, got "[1, 2]"'),
  P('P13', 'a structured dtype', (c) => c.io.readNpy(dict(`'descr': [('a', '<f4')], ${C_ORDER}`), 'x.npy'), "x.npy: invalid npy: expected a simple float dtype ('<f4', '<f8' or '<f2'), got a structured dtype [[\"a\", \"<f4\"]]"),
  P('P14', 'big-endian', (c) => c.io.readNpy(dict(`'descr': '>f4', ${C_ORDER}`), 'x.npy'), "x.npy: invalid npy: expected little-endian data ('<f4', '<f8' or '<f2'), got big-endian '>f4'; convert with a.astype('<f4')"),
  P('P15', 'object dtype', (c) => c.io.readNpy(dict(`'descr': '|O', ${C_ORDER}`), 'x.npy'), "x.npy: invalid npy: expected a float dtype ('<f4', '<f8' or '<f2'), got object dtype '|O'; save a numeric array"),
  P('P16', 'Fortran order', (c) => c.io.readNpy(dict("'descr': '<f4', 'fortran_order': True, 'shape': (1,)"), 'x.npy'), 'x.npy: invalid npy: expected C order (fortran_order: False), got fortran_order: true; save np.ascontiguousarray(a)'),
  P('P17', '2^64 elements', (c) => c.io.readNpy(dict("'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)"), 'x.npy'), 'x.npy: invalid npy: shape (4294967296, 4294967296) has too many elements'),
  P('P18', 'readNpyHeader of 9 bytes', (c) => c.io.readNpyHeader(new Uint8Array(9)), 'Uint8Array (9 bytes): invalid npy: expected a .npy file, got 9 bytes', ASYNC),
  P('P19', 'readNpyHeader of the first 20 bytes', (c) => c.io.readNpyHeader(vector(4).subarray(0, 20)), 'Uint8Array (20 bytes): invalid npy: header length 128 is larger than the 20-byte file', ASYNC),
  P('P20', 'gamma and beta of 4 and 3 values', (c) => c.io.loadLayerNormWeights({ gamma: vector(4), beta: vector(3) }), 'Uint8Array (144 bytes): invalid npy: gamma has 4 values but beta (Uint8Array (140 bytes)) has 3; expected equal lengths', ASYNC),
  // every checkpoint format
  P('P21', 'a bias name that is not there', (c) => c.io.loadLayerNormWeights(lnf(), { bias: 'nope' }), 'Uint8Array (184 bytes): invalid safetensors: no tensor named "nope" (bias); candidates: "ln_f.bias"', ASYNC),
  P('P22', 'two *norm* gains and none of the known names', (c) => c.io.loadLayerNormWeights(twoNorms()), 'Uint8Array (192 bytes): invalid safetensors: cannot tell which LayerNorm to load; candidates: "a.norm.weight", "b.norm.weight"; pass { weight, bias } to choose', ASYNC),
  P('P23', 'a GGUF gain in F64', (c) => c.io.loadLayerNormWeights(buildGguf([], [{ name: 'output_norm.weight', dims: [2], type: 28, data: new Uint8Array(16) }]),), 'Uint8Array (128 bytes): invalid gguf: tensor "output_norm.weight" has dtype F64; expected F32, F16 or BF16', ASYNC),
  // safetensors
  P('P24', 'a header length of 0', (c) => c.io.loadLayerNormWeights(concat([le64(0), new Uint8Array(8)])), 'Uint8Array (16 bytes): invalid safetensors: expected a JSON header, got a header length of 0', ASYNC),
  P('P25', 'a header that is an array', (c) => c.io.loadLayerNormWeights(rawSafetensors('[1, 2]')), 'Uint8Array (14 bytes): invalid safetensors: expected the header to be a JSON object, got an array', ASYNC),
  P('P26', 'a tensor entry that is a number', (c) => c.io.loadLayerNormWeights(rawSafetensors('{"ln_f.weight": 5}')), 'Uint8Array (26 bytes): invalid safetensors: expected tensor "ln_f.weight" to be an object, got 5', ASYNC),
  P('P27', 'a dtype that is a number', (c) => c.io.loadLayerNormWeights(rawSafetensors('{"ln_f.weight": {"dtype": 5, "shape": [2], "data_offsets": [0, 8]}}')), 'Uint8Array (75 bytes): invalid safetensors: expected tensor "ln_f.weight" to have a string dtype, got 5', ASYNC),
  P('P28', 'data_offsets [8, 0]', (c) => c.io.loadLayerNormWeights(rawSafetensors('{"ln_f.weight": {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]}}'),), 'Uint8Array (79 bytes): invalid safetensors: expected tensor "ln_f.weight" to have data_offsets [begin, end] with begin ≤ end, got [8, 0]', ASYNC),
  P('P29', 'data_offsets spanning 8 bytes for 16', (c) => c.io.loadLayerNormWeights(rawSafetensors('{"ln_f.weight": {"dtype": "F32", "shape": [4], "data_offsets": [0, 8]}}', new Uint8Array(8)),), 'Uint8Array (87 bytes): invalid safetensors: tensor "ln_f.weight" is F32 [4] = 16 bytes but data_offsets [0, 8] span 8', ASYNC),
  // GGUF
  P('P30', 'a metadata string past the header limit', (c) => c.io.loadLayerNormWeights(concat([ggufHead(0, 1), ggufString('a'), le32(8), le64(104_857_590)])), 'Uint8Array (45 bytes): invalid gguf: header is larger than the 104857600-byte limit while reading the value of "a"', ASYNC),
  P('P31', 'a key length of 2^64 - 1', (c) => c.io.loadLayerNormWeights(concat([ggufHead(0, 1), le64(2n ** 64n - 1n)])), 'Uint8Array (32 bytes): invalid gguf: expected the length of metadata key 0 to fit in 53 bits, got 18446744073709551615', ASYNC),
  P('P32', 'a key of 200,000,000 bytes', (c) => c.io.loadLayerNormWeights(concat([ggufHead(0, 1), le64(200_000_000)])), 'Uint8Array (32 bytes): invalid gguf: metadata key 0 claims 200000000 bytes, more than the header limit', ASYNC),
  P('P33', 'GGUX read as GGUF', (c) => c.io.loadLayerNormWeights(concat([utf8('GGUX'), le32(3), le64(0), le64(0)]), { format: 'gguf' }), 'Uint8Array (24 bytes): invalid gguf: expected the magic "GGUF", got 0x58554747', ASYNC),
  P('P34', 'a big-endian version', (c) => c.io.loadLayerNormWeights(concat([utf8('GGUF'), Uint8Array.of(0, 0, 0, 3), le64(0), le64(0)])), 'Uint8Array (24 bytes): invalid gguf: expected a little-endian GGUF, got a big-endian one', ASYNC),
  P('P35', '2^26 + 1 tensors', (c) => c.io.loadLayerNormWeights(ggufHead(2 ** 26 + 1, 0)), 'Uint8Array (24 bytes): invalid gguf: implausible counts: 67108865 tensors, 0 metadata entries', ASYNC),
  P('P36', 'an array of 2^26 + 1 elements', (c) => c.io.loadLayerNormWeights(concat([ggufHead(0, 1), ggufString('a'), le32(9), le32(4), le64(2 ** 26 + 1)])), 'Uint8Array (49 bytes): invalid gguf: metadata "a" claims 67108865 elements', ASYNC),
  P('P37', 'an array of arrays', (c) => c.io.loadLayerNormWeights(concat([ggufHead(0, 1), ggufString('a'), le32(9), le32(9), le64(1)])), 'Uint8Array (49 bytes): invalid gguf: metadata "a" is an array of unsupported type 9', ASYNC),
  P('P38', 'a value of type 99', (c) => c.io.loadLayerNormWeights(concat([ggufHead(0, 1), ggufString('a'), le32(99)])), 'Uint8Array (37 bytes): invalid gguf: metadata "a" has unknown value type 99', ASYNC),
  P('P39', 'a tensor of 9 dimensions', (c) => c.io.loadLayerNormWeights(ggufTensorFile('output_norm.weight', [1, 1, 1, 1, 1, 1, 1, 1, 1], 0, 0, 4)), 'Uint8Array (164 bytes): invalid gguf: tensor "output_norm.weight" claims 9 dimensions', ASYNC),
  P('P40', 'a tensor at offset 4 with alignment 32', (c) => c.io.loadLayerNormWeights(ggufTensorFile('output_norm.weight', [2], 0, 4, 16)), 'Uint8Array (112 bytes): invalid gguf: tensor "output_norm.weight" offset 4 is not a multiple of the alignment 32', ASYNC),
  P('P41', '1000 values in a 112-byte file', (c) => c.io.loadLayerNormWeights(ggufTensorFile('output_norm.weight', [1000], 0, 0, 16)), 'Uint8Array (112 bytes): invalid gguf: tensor "output_norm.weight" (bytes 96..4096) runs past the end of the 112-byte file', ASYNC),
  P('P41a', '2^80 values, more bytes than a double counts', (c) => c.io.loadLayerNormWeights(ggufTensorFile('output_norm.weight', [2 ** 40, 2 ** 40], 0, 0, 16)), 'Uint8Array (112 bytes): invalid gguf: tensor "output_norm.weight" (bytes 96..more than 2^53) runs past the end of the 112-byte file', ASYNC),
  // JSON
  P('P42', 'JSON [1]]', (c) => c.io.parseActivationsJson('[1]]', 'x.json'), 'x.json: invalid json: expected the end of the input, got "]" (line 1, column 4)'),
  P('P43', 'JSON {1: 2}', (c) => c.io.parseActivationsJson('{1: 2}', 'x.json'), 'x.json: invalid json: expected a quoted property name, got "1: 2}" (line 1, column 2)'),
  P('P44', 'JSON {"a" 1}', (c) => c.io.parseActivationsJson('{"a" 1}', 'x.json'), 'x.json: invalid json: expected ":" after the property name, got "1}" (line 1, column 6)'),
  P('P45', 'JSON ["abc', (c) => c.io.parseActivationsJson('["abc', 'x.json'), 'x.json: invalid json: expected a closing quote for the string (line 1, column 2)'),
  P('P46', 'JSON ["\\x"]', (c) => c.io.parseActivationsJson('["\\x"]', 'x.json'), 'x.json: invalid json: expected a valid JSON string (line 1, column 2)'),
  P('P47', 'JSON "a"', (c) => c.io.parseActivationsJson('"a"', 'x.json'), 'x.json: invalid json: expected the activations to be an array of numbers, got the string "a" (line 1, column 1)'),
  P('P48', 'JSON [[1], ["x"]]', (c) => c.io.parseActivationsJson('[[1], ["x"]]', 'x.json'), 'x.json: invalid json: expected a number at depth 2 of the activations, got the string "x" (line 1, column 8)'),
  P('P49', 'JSON "shape": 5', (c) => c.io.parseActivationsJson('{"shape": 5, "data": []}', 'x.json'), 'x.json: invalid json: expected "shape" to be an array of non-negative integers, got the number 5 (line 1, column 1)'),
  P('P50', 'JSON "shape" [2, 2] with 3 values', (c) => c.io.parseActivationsJson('{"shape": [2, 2], "data": [1, 2, 3]}', 'x.json'), 'x.json: invalid json: "shape" [2, 2] needs 4 values, "data" has 3 (line 1, column 27)'),
  // plain text
  P('P51', 'text ,1', (c) => c.io.parseActivationsText(',1', 'x.txt'), 'x.txt: invalid text: expected a number before "," (line 1, column 1)'),
  // config.json
  P('P52', 'a config of 4 MiB + 1 byte', (c) => c.io.loadNormWeights(lnf(), { config: new File([new Uint8Array(4 * 1024 * 1024 + 1)], 'config.json') }), 'config.json: invalid json: expected a config.json of at most 4194304 bytes, got 4194305', ASYNC),
  // OLMo 1's final norm has no parameters, so nothing in this file gives the model's width.
  P('P53', 'a parameterless final norm of unknown width', (c) => c.io.loadNormWeights(lnf(), { config: { model_type: 'olmo' } }), 'Uint8Array (184 bytes): invalid safetensors: the final norm has no parameters, so its width comes from the model: expected hidden_size in config.json, <arch>.embedding_length in the GGUF, or an embedding tensor; found none', ASYNC),
];
