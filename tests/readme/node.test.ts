/**
 * Every README block annotated `node` runs as written in Node: as an ES module of a user's
 * project that has the package installed (tests/readme/consumer.ts), after the one prelude
 * (tests/readme/prelude.mjs), with the Hub's URLs answered by a local server (offline-fetch.mjs).
 * A block fails by throwing, rejecting, exiting non-zero or writing to stderr.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { blocksRunIn } from './blocks.js';
import { makeConsumer, type Consumer } from './consumer.js';
import { encodeArrays, hubFiles, preludeArrays } from './fixtures.js';

const RUNNER = join(import.meta.dirname, 'run-in-node.mjs');
const blocks = blocksRunIn('node');
let hub: FixtureServer;
let consumer: Consumer;
let arrays: string;

beforeAll(async () => {
  hub = await startFixtureServer({ files: hubFiles() });
  consumer = makeConsumer();
  arrays = consumer.write('prelude-arrays.bin', encodeArrays(preludeArrays()));
});
afterAll(async () => {
  consumer?.remove();
  await hub?.close();
});

/** Runs one example file; resolves with its exit status and output (never rejects). */
function runExample(file: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env = { ...process.env, LNW_README_HUB: hub.origin, NODE_OPTIONS: '' };
    execFile(
      process.execPath,
      [RUNNER, arrays, file],
      { cwd: consumer.dir, env, timeout: 90_000 },
      (error, stdout, stderr) =>
        resolve({ status: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

describe('README examples in Node', () => {
  it('there are examples to run', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
  });

  for (const block of blocks) {
    it(`${block.name} runs as written`, async () => {
      const file = consumer.write(`example-${block.readme.replace(/\W/g, '-')}-${block.line}.mjs`, block.code);
      const run = await runExample(file);
      expect({ status: run.status, stderr: run.stderr }, `${block.name}\n${block.code}\n${run.stdout}`).toEqual({
        status: 0,
        stderr: '',
      });
    });
  }
});
