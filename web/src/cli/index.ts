#!/usr/bin/env node
/**
 * layernorm-wasm command line: normalize activations stored in a file with the norm weights of a
 * checkpoint (LayerNorm or RMSNorm), optionally checking the result against a reference output.
 * The program is run.ts; this file starts it when run as the package's bin.
 */
import { realpath } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { runCli } from './run.js';

export { runCli, type CliIO } from './run.js';
export { USAGE } from './usage.js';

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
