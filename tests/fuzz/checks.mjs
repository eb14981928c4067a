// The oracle of the I/O targets: which failures a reader may show for bad input.
import { FormatError } from '../../dist/io/index.js';
import { FORMAT_PROBLEMS, problemOf } from './format-problems.mjs';
import { FuzzFailure, describeError, fail } from './oracle.mjs';

/**
 * The only failure a reader may show for bad input: the package's FormatError, for one of the
 * formats it was reading, naming the source it was given, stating a documented problem.
 */
function checkIoError(e, what, { formats, source }) {
  if (e instanceof FuzzFailure) throw e;
  if (!(e instanceof FormatError)) fail(`${what}: expected a FormatError, got ${describeError(e)}`);
  if (!formats.includes(e.format)) fail(`${what}: a FormatError for ${e.format}, expected ${formats.join(' or ')}`);
  if (e.source !== source) fail(`${what}: a FormatError naming ${e.source}, expected ${source}: ${e.message}`);
  const problem = problemOf(e);
  if (problem === null)
    fail(`${what}: a FormatError message not of the form "<source>: invalid <format>: …": ${e.message}`);
  if (!FORMAT_PROBLEMS[e.format].some((pattern) => pattern.test(problem))) {
    fail(`${what}: a FormatError stating an undocumented problem (tests/fuzz/format-problems.mjs): ${problem}`);
  }
}

export function checkSync(what, fn, expected) {
  try {
    fn();
  } catch (e) {
    checkIoError(e, what, expected);
  }
}

export async function checkAsync(what, fn, expected) {
  try {
    await fn();
  } catch (e) {
    checkIoError(e, what, expected);
  }
}

/** One input of a weights target: loadLayerNormWeights on bytes in memory, for any format it sniffs. */
export function checkLoadWeights(io, format, b) {
  const expected = { formats: ['safetensors', 'gguf', 'npy'], source: `Uint8Array (${b.length} bytes)` };
  return checkAsync(`loadLayerNormWeights(${format})`, () => io.loadLayerNormWeights(b), expected);
}
