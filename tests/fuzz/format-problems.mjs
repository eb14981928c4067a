// Every problem a FormatError from the file and text readers may state, by format: the oracle of
// the I/O fuzz targets accepts a FormatError only when its message is one of these (and nothing
// else: no TypeError, RangeError or engine message). web/docs/errors.md quotes an example of each,
// and tests/fuzz/format-problems.test.ts holds the two to one list: every pattern here has an
// example there, and every FormatError the catalogue quotes matches a pattern here. A new message
// in web/src/io/ is added to both (and, with an input producing it, to the catalogue's cases,
// tests/kit/catalogue/files.mjs).

/** Messages the weight loaders (web/src/io/weights.ts, norm-kind.ts, tensor-names.ts) give for any checkpoint format. */
const WEIGHTS = [
  /^expected a weights file, got \d+ bytes$/,
  /^no tensor named ".*" \((weight|bias)\); candidates: .*$/s,
  /^cannot tell which LayerNorm to load; candidates: .*; pass \{ weight, bias \} to choose$/s,
  /^no LayerNorm tensors found \(looked for ln_f\.weight, transformer\.ln_f\.weight, output_norm\.weight or a single \*norm\*\/ln_f weight\); tensors: .*$/s,
  /^tensor ".*" has dtype .*; expected F32, F16 or BF16$/s,
  /^tensor ".*" has dtype F64; expected F32, F16 or BF16$/s,
  /^tensor ".*" has shape \[.*\]; expected a vector \[d\]$/s,
  /^gain ".*" has \d+ values but bias ".*" has \d+; expected equal lengths$/s,
  /^expected a LayerNorm, got an RMSNorm: ".*" is the gain of an RMSNorm \(.*\); load it with loadNormWeights, which returns either kind$/s,
  /^expected a bias beside ".*", but it is the gain of an RMSNorm \(.*\), which has none; leave out options\.bias$/s,
  /^expected .* to be a finite number >= 0, got .*$/s,
  /^the final norm has no parameters, so its width comes from the model: expected hidden_size in config\.json, <arch>\.embedding_length in the GGUF, or an embedding tensor; found none$/s,
];

const NPY = [
  /^expected the magic bytes 93 4e 55 4d 50 59 \("\\x93NUMPY"\), got (an empty file|[0-9a-f]{2}( [0-9a-f]{2}){0,5})$/,
  /^expected a 10-byte preamble, got \d bytes$/,
  /^expected a 12-byte preamble for version [23], got \d+ bytes$/,
  /^header length \d+ exceeds the 1048576-byte limit$/,
  /^expected format version 1, 2 or 3, got \d+\.\d+$/,
  /^expected a header dict after the (10|12)-byte preamble, got a header length of [01]$/,
  /^unterminated string in the header$/,
  /^unexpected ".*" in the header at offset \d+$/s,
  /^unexpected ".*" in the header$/s,
  /^the header ends before its dict is closed$/,
  /^unexpected ".*" after the header dict$/s,
  /^expected "key: value" in the header dict at offset \d+$/,
  /^expected "," or "[})\]]" in the header at offset \d+, got ".*"$/s,
  /^expected a \d+-byte header, the file has \d+ bytes$/,
  /^expected the header to be a dict, got ".*"$/s,
  /^expected a simple float dtype \('<f4', '<f8' or '<f2'\), got a structured dtype .+$/s,
  /^expected little-endian data \('<f4', '<f8' or '<f2'\), got big-endian '.*'; convert with a\.astype\('<f4'\)$/s,
  /^expected a float dtype \('<f4', '<f8' or '<f2'\), got object dtype '.*'; save a numeric array$/s,
  /^expected dtype '<f4', '<f8' or '<f2', got '.*'; convert with a\.astype\('<f4'\)$/s,
  /^expected C order \(fortran_order: False\), got fortran_order: .+; save np\.ascontiguousarray\(a\)$/s,
  /^expected the shape to be a tuple of non-negative integers, got .+$/s,
  /^shape \([\d, ]*\) has too many elements$/,
  /^shape \([\d, ]*\) of float(16|32|64) needs \d+ data bytes, the file has \d+$/,
  /^expected a \.npy file, got \d+ bytes$/,
  /^header length \d+ is larger than the \d+-byte file$/,
  /^expected a vector of shape \(d,\), got shape \([\d, ]*\)$/,
  /^gamma has \d+ values but beta \(.*\) has \d+; expected equal lengths$/s,
  /^expected a gain only: the config says RMSNorm \(.*\), which has no bias, but a beta file was given \(.*\)$/s,
  ...WEIGHTS,
];

const SAFETENSORS = [
  /^header length \d+ bytes exceeds the 104857600-byte limit \(not a safetensors file\?\)$/,
  /^header length \d+ bytes is larger than the \d+ bytes after the length field$/,
  /^expected a JSON header, got a header length of [01]$/,
  // The engine's JSON.parse message in parentheses: its wording differs between engines.
  /^expected a JSON header, got ".*"… \(.+\)$/s,
  /^expected the header to be a JSON object, got .+$/,
  /^expected tensor ".*" to be an object, got .+$/s,
  /^expected tensor ".*" to have a string dtype, got .+$/s,
  /^expected tensor ".*" to have a shape of non-negative integers, got .+$/s,
  /^expected tensor ".*" to have data_offsets \[begin, end\] with begin ≤ end, got .+$/s,
  /^tensor ".*" data_offsets \[\d+, \d+\] run past the end of the data section \(\d+ bytes\)$/s,
  /^tensor ".*" is .* \[[\d, ]*\] = \d+ bytes but data_offsets \[\d+, \d+\] span \d+$/s,
  /^tensors ".*" \[\d+, \d+\] and ".*" \[\d+, \d+\] overlap$/s,
  ...WEIGHTS,
];

const GGUF = [
  /^header is larger than the 104857600-byte limit while reading .+$/s,
  /^expected .+ at byte \d+, but the file ends at byte \d+$/s,
  /^expected .+ to fit in 53 bits, got \d+$/s,
  /^.+ claims \d+ bytes, more than the header limit$/s,
  /^expected the magic "GGUF", got 0x[0-9a-f]{8}$/,
  /^expected a little-endian GGUF, got a big-endian one$/,
  /^expected GGUF version 2 or 3, got \d+$/,
  /^implausible counts: \d+ tensors, \d+ metadata entries$/,
  /^metadata ".*" claims \d+ elements$/s,
  /^metadata ".*" is an array of unsupported type \d+$/s,
  /^expected general\.alignment to be a power of two, got .+$/,
  /^metadata ".*" has unknown value type \d+$/s,
  /^tensor ".*" claims \d+ dimensions$/s,
  /^tensor ".*" offset \d+ is not a multiple of the alignment \d+$/s,
  /^tensor ".*" \(bytes \d+\.\.(\d+|more than 2\^53)\) runs past the end of (the \d+-byte file|any file)$/s,
  ...WEIGHTS,
];

const ACTIVATIONS = '(the activations|"data")';
const JSON_TEXT = [
  /^expected the end of the input, got .+$/s,
  /^expected "," or "[\]}]" in the (array|object), got .+$/s,
  /^expected a quoted property name, got .+$/s,
  /^expected ":" after the property name, got .+$/s,
  /^expected a number, array or object, got .+$/s,
  /^expected a closing quote for the string$/,
  /^expected a valid JSON string$/,
  new RegExp(`^expected ${ACTIVATIONS} to have at most 64 dimensions, got arrays nested deeper$`),
  new RegExp(`^expected ${ACTIVATIONS} to be an array of numbers, got .+$`, 's'),
  new RegExp(`^expected a number at depth \\d+ of ${ACTIVATIONS}, got .+$`, 's'),
  new RegExp(`^ragged ${ACTIVATIONS}: expected an array of \\d+ at depth \\d+, got .+$`, 's'),
  new RegExp(`^ragged ${ACTIVATIONS}: expected \\d+ elements like the first array at depth \\d+, got \\d+$`),
  /^expected an object with "shape" and "data", got keys \[.*\]$/s,
  /^expected "shape" to be an array of non-negative integers, got .+$/s,
  /^expected "shape" to have at most 64 dimensions, got \d+$/,
  /^"shape" \[[\d, ]*\] needs \d+ values, "data" has \d+$/,
];

const PLAIN_TEXT = [
  /^expected a number before ","$/,
  /^expected a number, got ".*"$/s,
  /^ragged rows: expected \d+ numbers per row like line \d+, got (more|\d+)$/,
  /^expected at least one row of numbers, got none$/,
];

/** What readOnnxModel says of a model (web/src/onnx/problems.ts), whatever bytes it is given. */
const NORM = '(the norm ".*" \\(.+\\))';
const ONNX = [
  /^expected an ONNX model \(a protobuf ModelProto\), but (it is empty|it starts with [0-9a-f]{2}( [0-9a-f]{2}){0,7}( \(".*"\))?: .+)$/s,
  /^the file is truncated: it ends at byte \d+, inside .+ of the ModelProto \(from byte \d+\)$/,
  /^malformed protobuf at byte \d+, in .+: .+$/s,
  /^tensor ".*" keeps its data in an external file \(".*"\); expected every tensor inside the model: use an export without external data, or save one with onnx\.save\(model, path, save_as_external_data=False\)$/s,
  /^found no normalization in the main graph \(LayerNormalization, SkipLayerNormalization, SimplifiedLayerNormalization, SkipSimplifiedLayerNormalization, or their decomposed forms\); its \d+ nodes are .+$/s,
  new RegExp(
    `^${NORM} is inside .+, and a value inside a subgraph cannot be made an output of the model; use an export without If or Loop nodes \\(decoder_model\\.onnx or model\\.onnx rather than decoder_model_merged\\.onnx\\)$`,
    's',
  ),
  new RegExp(
    `^(γ|β|ε) of ${NORM} \\(".*"\\) is .+; expected float32: use the float32 or the quantized \\(q8\\) export, whose norms stay float32$`,
    's',
  ),
  new RegExp(
    `^(γ|β|ε) of ${NORM} is ".*", a value of the graph; expected an initializer or a Constant node, whose values can be read$`,
    's',
  ),
  new RegExp(`^(γ|β) of ${NORM} \\(".*"\\) has shape \\[[-\\d, ]*\\]; expected a vector of d values$`, 's'),
  /^tensor ".*" \(.+ \[[-\d, ]*\]\) does not hold the values its shape says$/s,
  new RegExp(`^β of ${NORM} has \\d+ values and γ \\d+; expected equal lengths$`, 's'),
  new RegExp(
    `^${NORM} normalizes from axis -?\\d+; expected the last axis \\(-1\\), the one a row of d values is normalized over$`,
    's',
  ),
  new RegExp(`^ε of ${NORM} is .+; expected a finite number >= 0$`, 's'),
  new RegExp(`^the (input|output) of ${NORM} is .+ \\(its value_info\\); expected float32 activations$`, 's'),
];

/**
 * What capture says of a model it runs (format onnx): not reached by the fuzz target, which reads
 * models without running them; kept apart so that its oracle does not accept them.
 */
export const ONNX_CAPTURE_PROBLEMS = [
  /^the model declares an input ".*" \(.+\) that capture cannot fill from token ids; pass it in options\.feeds$/s,
  /^the runtime returned .+ for ".*", whose type the model does not state; expected float32 activations$/s,
];

/**
 * What readModelConfig says of a config.json (format json). Not reached by the fuzz targets, which
 * give no config; kept apart so the activation parsers' oracle does not accept them.
 */
export const CONFIG_PROBLEMS = [
  /^expected a config\.json of at most 4194304 bytes, got (\d+|more)$/,
  // The engine's JSON.parse message in parentheses, as for a safetensors header.
  /^expected config\.json to be JSON \(.+\)$/s,
  /^expected config\.json to hold a JSON object, got .+$/s,
];

export const FORMAT_PROBLEMS = {
  npy: NPY,
  safetensors: SAFETENSORS,
  gguf: GGUF,
  json: JSON_TEXT,
  text: PLAIN_TEXT,
  onnx: ONNX,
};

/** The part of a FormatError message after "<source>: invalid <format>: ", without " (line L, column C)". */
export function problemOf(error) {
  const where = error.source ? `${error.source}: ` : '';
  const head = `${where}invalid ${error.format}: `;
  if (!error.message.startsWith(head)) return null;
  let problem = error.message.slice(head.length);
  if (error.line !== undefined) {
    const at = ` (line ${error.line}, column ${error.column})`;
    if (!problem.endsWith(at)) return null;
    problem = problem.slice(0, -at.length);
  }
  return problem;
}
