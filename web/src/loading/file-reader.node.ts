/**
 * Reading a file: URL from disk, in Node (from 20.0: no process.getBuiltinModule needed), Deno
 * and Bun. Reached only through the package's "#file-reader" import under the "node" condition,
 * so browser bundles never see `node:fs`.
 */
import { readFile } from 'node:fs/promises';

export async function readFileBytes(url: URL): Promise<Uint8Array> {
  return readFile(url);
}
