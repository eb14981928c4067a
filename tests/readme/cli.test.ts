/**
 * The README's command line, run as written by a shell in a user's project (the package in
 * node_modules, its bin on npx's path), with `gpt2` read from the local stand-in for the Hub
 * (offline-fetch.mjs, loaded into the CLI's Node with --import). Its x.npy is the prelude's x;
 * its y_ref.npy, which the README makes with PyTorch, is the test kit's exact answer with the
 * served checkpoint's γ, β and ε.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { init } from 'layernorm-wasm';
import { readNpy, writeNpy } from 'layernorm-wasm/io';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { exactLayerNorm } from '../kit/exact.mjs';
import { specBlocks } from './blocks.js';
import { makeConsumer, type Consumer } from './consumer.js';
import { hubFiles, preludeArrays } from './fixtures.js';

const [block] = specBlocks('tests/readme/cli.test.ts');
const { x, gamma, beta } = preludeArrays();
const shape = [2, 64, 768];
let hub: FixtureServer;
let consumer: Consumer;

beforeAll(async () => {
  hub = await startFixtureServer({ files: hubFiles() });
  consumer = makeConsumer();
  consumer.write('x.npy', writeNpy(x, shape));
  consumer.write('y_ref.npy', writeNpy(exactLayerNorm(x, 768, { gamma, beta, eps: 1e-5 }), shape));
});
afterAll(async () => {
  consumer?.remove();
  await hub?.close();
});

describe('README: the command line', () => {
  it(`${block!.name} runs as written: gpt2 from the Hub, x.npy in, y.npy out, PASS against y_ref.npy`, async () => {
    const offline = pathToFileURL(join(import.meta.dirname, 'offline-fetch.mjs')).href;
    const env = {
      ...process.env,
      LNW_README_HUB: hub.origin,
      NODE_OPTIONS: `--import=${offline}`,
      // npx must find the installed bin; it may not fetch one.
      npm_config_offline: 'true',
      npm_config_update_notifier: 'false',
    };
    const run = await new Promise<{ status: number; stdout: string; stderr: string }>((resolve) =>
      execFile('sh', ['-c', block!.code], { cwd: consumer.dir, env, timeout: 90_000 }, (error, stdout, stderr) =>
        resolve({ status: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
    expect({ status: run.status, stderr: run.stderr }, run.stdout).toEqual({ status: 0, stderr: '' });
    const lines = run.stdout.split('\n');
    expect(lines.find((l) => l.startsWith('weights'))).toMatch(
      /^weights {3}ln_f\.weight, ln_f\.bias \[F32\] from https:\/\/huggingface\.co\/openai-community\/gpt2\/resolve\/main\/model\.safetensors, /,
    );
    expect(lines.find((l) => l.startsWith('input'))).toBe(
      'input     x.npy shape [2, 64, 768]: 128 rows, d = 768, eps = 0.00001 (from the checkpoint)',
    );
    expect(lines.find((l) => l.startsWith('result'))).toBe('result    PASS: max abs ≤ tol 0.00001');
    const y = readNpy(readFileSync(join(consumer.dir, 'y.npy')));
    expect(y.shape).toEqual(shape);
    const rt = await init();
    expect(y.data).toEqual(rt.layerNorm(x, 768, { gamma, beta, eps: 1e-5 }));
  });
});
