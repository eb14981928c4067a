#!/usr/bin/env node
/**
 * layernorm-wasm command line: normalize activations stored in a file with the LayerNorm weights
 * of a checkpoint, optionally checking the result against a reference output.
 */

import { constants, openAsBlob } from 'node:fs';
import { access, open, readFile, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compareOutputs, init } from './index.js';
import {
  GPT2_SAFETENSORS_URL,
  loadLayerNormWeights,
  parseActivationsJson,
  parseActivationsText,
  readNpy,
  writeNpy,
  type Activations,
  type LayerNormWeights,
  type LoadWeightsOptions,
  type WeightsSource,
} from './io/index.js';

export const USAGE = `Usage: layernorm-wasm --weights <url|file|gpt2> --in <x.npy> [--out <y.npy>] [options]

Normalizes each row of the input (last dimension d) with y = γ·(x − μ)/√(σ² + ε) + β.

Weights
  --weights <url|file>   safetensors, GGUF or .npy (gain); http(s) URLs are read with Range
                         requests, files through fs.openAsBlob; only the two tensors are read.
                         "gpt2" means ${GPT2_SAFETENSORS_URL}
  --weight-name <name>   gain tensor (default: ln_f / transformer.ln_f / output_norm, or the one
                         *norm* weight in the file)
  --bias-name <name>     bias tensor (default: the gain's sibling, e.g. ln_f.bias)
  --no-bias              load the gain only (bias-free LayerNorm)
  --beta <file>          with a .npy gain: the bias .npy
  --config <url|file>    the model's config.json, for ε and the kind of norm (read by itself
                         for a Hugging Face Hub URL)
  --eps <number>         ε added to the variance (default: the checkpoint's ε when it states
                         one — GGUF metadata or config.json — else 1e-5)

Data
  --in <file>            activations: .npy (float32/float64/float16, C order), .json (nested
                         arrays or {"shape", "data"}), or .txt/.csv (one row per line)
  --out <file>           where to write y as float32 .npy (same shape as the input); written
                         to a temporary file beside it, then renamed over it
  --expect <file>        reference output to compare with (same formats as --in)
  --tol <number>         largest acceptable max |y − expected| (default 1e-5)

Runtime
  --backend <b>          auto (default), simd or scalar
  -h, --help             show this help

Exit status: 0 ok, 1 failure or --expect over --tol, 2 bad arguments.`;

export interface CliIO {
  out(line: string): void;
  err(line: string): void;
  /** The runtime factory; replaceable in tests. */
  init?: typeof init;
}

class UsageError extends Error {}

function number(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0) {
    throw new UsageError(`${flag} expects a finite number ≥ 0, got ${JSON.stringify(text)}`);
  }
  return value;
}

async function existingFile(flag: string, path: string): Promise<void> {
  const info = await stat(path).catch(() => null);
  if (!info) throw new UsageError(`${flag}: no such file ${JSON.stringify(path)}`);
  if (!info.isFile()) throw new UsageError(`${flag}: ${JSON.stringify(path)} is not a file`);
}

async function weightsSource(flag: string, spec: string): Promise<string | File> {
  if (spec === 'gpt2') return GPT2_SAFETENSORS_URL;
  if (/^https?:\/\//i.test(spec)) return spec;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(spec)) {
    throw new UsageError(`${flag}: expected an http(s) URL or a file path, got ${JSON.stringify(spec)}`);
  }
  await existingFile(flag, spec);
  // A Blob backed by the file: reads are ranges, the checkpoint is never loaded whole. As a File
  // named by its path, messages and the summary name the file.
  return new File([await openAsBlob(spec)], spec);
}

/** Fails before any work when --out cannot be written: a missing folder, a folder as the target. */
async function checkOutput(path: string): Promise<void> {
  const folder = dirname(path);
  const info = await stat(folder).catch(() => null);
  if (!info) throw new UsageError(`--out: the folder ${JSON.stringify(folder)} does not exist`);
  if (!info.isDirectory()) throw new UsageError(`--out: ${JSON.stringify(folder)} is not a folder`);
  if (
    !(await access(folder, constants.W_OK).then(
      () => true,
      () => false,
    ))
  ) {
    throw new UsageError(`--out: the folder ${JSON.stringify(folder)} is not writable`);
  }
  if ((await stat(path).catch(() => null))?.isDirectory()) {
    throw new UsageError(`--out: ${JSON.stringify(path)} is a folder; expected a file name`);
  }
}

/**
 * Writes `bytes` to a temporary file beside `path`, flushes it to disk, then renames it over
 * `path`: a crash or kill mid-write leaves the previous file whole, never a truncated one.
 */
async function writeFileAtomic(path: string, bytes: Uint8Array): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}-${Math.random().toString(36).slice(2, 10)}.tmp`);
  try {
    const file = await open(tmp, 'wx');
    try {
      await file.writeFile(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

async function readActivations(flag: string, path: string): Promise<Activations> {
  await existingFile(flag, path);
  const ext = extname(path).toLowerCase();
  const bytes = await readFile(path);
  if (ext === '.json') return parseActivationsJson(bytes.toString('utf8'), path);
  if (ext === '.txt' || ext === '.csv' || ext === '.tsv') return parseActivationsText(bytes.toString('utf8'), path);
  return readNpy(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), path);
}

function range(values: Float64Array): string {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return values.length ? `[${fmt(lo)}, ${fmt(hi)}]` : '[]';
}

function fmt(v: number): string {
  return Number.isInteger(v) && Math.abs(v) < 1e6 ? String(v) : v.toPrecision(6);
}

function kb(bytes: number): string {
  return bytes < 1024
    ? `${bytes} B`
    : bytes < 1 << 20
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${(bytes / 2 ** 20).toFixed(1)} MB`;
}

/** Runs the command; resolves to the exit status instead of exiting, so it can be tested. */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  try {
    return await run(argv, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`layernorm-wasm: ${error.message}`);
      io.err('Run layernorm-wasm --help for usage.');
      return 2;
    }
    io.err(`layernorm-wasm: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

async function run(argv: string[], io: CliIO): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        weights: { type: 'string' },
        'weight-name': { type: 'string' },
        'bias-name': { type: 'string' },
        'no-bias': { type: 'boolean' },
        beta: { type: 'string' },
        config: { type: 'string' },
        eps: { type: 'string' },
        in: { type: 'string' },
        out: { type: 'string' },
        expect: { type: 'string' },
        tol: { type: 'string' },
        backend: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const a = parsed.values;
  if (a.help) {
    io.out(USAGE);
    return 0;
  }
  if (!a.weights) throw new UsageError('--weights is required (a URL, a file, or "gpt2")');
  if (!a.in) throw new UsageError('--in is required (the activations file)');
  if (a['no-bias'] && (a['bias-name'] || a.beta))
    throw new UsageError('--no-bias cannot be combined with --bias-name or --beta');
  const backend = a.backend ?? 'auto';
  if (backend !== 'auto' && backend !== 'simd' && backend !== 'scalar') {
    throw new UsageError(`--backend expects auto, simd or scalar, got ${JSON.stringify(backend)}`);
  }
  const epsGiven = a.eps === undefined ? null : number('--eps', a.eps, 1e-5);
  const tol = number('--tol', a.tol, 1e-5);
  if (a.tol !== undefined && !a.expect) throw new UsageError('--tol needs --expect');
  if (a.out && extname(a.out).toLowerCase() !== '.npy')
    throw new UsageError(`--out writes .npy; got ${JSON.stringify(a.out)}`);
  if (a.out) await checkOutput(a.out);

  let source: WeightsSource = await weightsSource('--weights', a.weights);
  const options: LoadWeightsOptions = {};
  if (a.config) options.config = await weightsSource('--config', a.config);
  if (a['weight-name']) options.weight = a['weight-name'];
  if (a['bias-name']) options.bias = a['bias-name'];
  if (a['no-bias']) options.bias = null;
  if (a.beta) {
    if (extname(a.weights).toLowerCase() !== '.npy')
      throw new UsageError('--beta goes with a .npy file given to --weights');
    source = { gamma: source as string | File, beta: await weightsSource('--beta', a.beta) };
  }
  const x = await readActivations('--in', a.in);
  const expected = a.expect ? await readActivations('--expect', a.expect) : null;

  const weights: LayerNormWeights = await loadLayerNormWeights(source, options);
  const d = weights.d;
  const last = x.shape.at(-1);
  if (last !== d) {
    throw new Error(
      `${a.in}: expected the last dimension to be d = ${d} (from the weights), got shape [${x.shape.join(', ')}]`,
    );
  }
  if (expected && expected.data.length !== x.data.length) {
    throw new Error(
      `${a.expect}: expected ${x.data.length} values (shape [${x.shape.join(', ')}]), got shape [${expected.shape.join(', ')}]`,
    );
  }
  const rows = x.data.length / d;
  const eps = epsGiven ?? weights.eps ?? 1e-5;
  const epsFrom = epsGiven !== null ? '--eps' : weights.eps !== null ? 'from the checkpoint' : 'default';

  const rt = await (io.init ?? init)({ backend });
  const callOptions = { gamma: weights.gamma, beta: weights.beta, eps };
  // One untimed call so the timing excludes first-call costs (heap growth, JIT tiers).
  rt.layerNorm(x.data, d, callOptions);
  const t0 = performance.now();
  const y = rt.layerNorm(x.data, d, callOptions);
  const ms = performance.now() - t0;
  const stats = rt.layerNormStats(x.data, d, { eps });

  io.out(
    `weights   ${weights.names.weight}${weights.names.bias ? `, ${weights.names.bias}` : ' (no bias)'} ` +
      `[${weights.dtype}] from ${weights.source}, ${kb(weights.bytesRead)} read`,
  );
  io.out(`input     ${a.in} shape [${x.shape.join(', ')}]: ${rows} rows, d = ${d}, eps = ${eps} (${epsFrom})`);
  io.out(`backend   ${rt.backend}, kernel ${rt.kernel}`);
  io.out(`time      ${ms.toFixed(3)} ms`);
  io.out(`mean      ${range(stats.mean)}`);
  io.out(`variance  ${range(stats.variance)}`);
  io.out(`rstd      ${range(stats.rstd)}`);

  if (a.out) {
    await writeFileAtomic(a.out, writeNpy(y, x.shape));
    io.out(`wrote     ${a.out} (float32, shape [${x.shape.join(', ')}])`);
  }
  if (expected) {
    const c = compareOutputs(y, expected.data, d, weights.beta);
    const at =
      c.maxAbs > 0 && c.worstIndex >= 0 ? ` at row ${Math.floor(c.worstIndex / d)}, column ${c.worstIndex % d}` : '';
    const pass = c.maxAbs <= tol && c.nonFiniteMismatches === 0;
    io.out(
      `expect    ${a.expect}: max abs ${c.maxAbs.toExponential(3)}${at}, max sULP ${c.maxScaledUlp.toFixed(2)}, ` +
        `${c.differingBits} of ${y.length} values differ` +
        (c.nonFiniteMismatches ? `, ${c.nonFiniteMismatches} non-finite values disagree (NaN, +Inf, -Inf)` : ''),
    );
    io.out(
      `result    ${pass ? 'PASS' : 'FAIL'}: ` +
        (c.nonFiniteMismatches && c.maxAbs <= tol
          ? `${c.nonFiniteMismatches} non-finite values disagree`
          : `max abs ${pass ? '≤' : '>'} tol ${tol}`),
    );
    if (!pass) return 1;
  }
  return 0;
}

async function isMain(): Promise<boolean> {
  const entry = process.argv[1];
  if (!entry) return false;
  // npx and npm link start the bin through a symlink.
  const resolved = await realpath(entry).catch(() => entry);
  return resolved === fileURLToPath(import.meta.url);
}

if (await isMain()) {
  process.exitCode = await runCli(process.argv.slice(2), {
    out: (line) => process.stdout.write(line + '\n'),
    err: (line) => process.stderr.write(line + '\n'),
  });
}
