/** What the command line reads and writes: checked before any work, written whole or not at all. */
import { constants, openAsBlob } from 'node:fs';
import { access, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import {
  GPT2_SAFETENSORS_URL,
  parseActivationsJson,
  parseActivationsText,
  readNpy,
  type Activations,
} from '../io/index.js';
import { UsageError } from './usage.js';

export async function existingFile(flag: string, path: string): Promise<void> {
  const info = await stat(path).catch(() => null);
  if (!info) throw new UsageError(`${flag}: no such file ${JSON.stringify(path)}`);
  if (!info.isFile()) throw new UsageError(`${flag}: ${JSON.stringify(path)} is not a file`);
}

export async function weightsSource(flag: string, spec: string): Promise<string | File> {
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
export async function checkOutput(path: string): Promise<void> {
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
export async function writeFileAtomic(path: string, bytes: Uint8Array): Promise<void> {
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

export async function readActivations(flag: string, path: string): Promise<Activations> {
  await existingFile(flag, path);
  const ext = extname(path).toLowerCase();
  const bytes = await readFile(path);
  if (ext === '.json') return parseActivationsJson(bytes.toString('utf8'), path);
  if (ext === '.txt' || ext === '.csv' || ext === '.tsv') return parseActivationsText(bytes.toString('utf8'), path);
  return readNpy(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), path);
}
