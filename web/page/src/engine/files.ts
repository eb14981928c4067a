/** Activations from text (pasted, .json, .txt) and .npy files, with token strings for their rows. */
import {
  decodeNpyData,
  isNpy,
  parseActivationsJson,
  parseActivationsText,
  readNpy,
  readNpyHeader,
} from 'layernorm-wasm/io';
import { fmtBytes } from '../ui/format';
import {
  InputError,
  MAX_FILE_BYTES,
  MAX_TEXT_BYTES,
  memorySource,
  nextActivationsId,
  rowsOf,
  SLICE_BYTES,
  STREAM_BYTES,
  type Source,
} from './held';
import type { ActivationsInfo } from './protocol';
import { checkTokens, tokensFromFile, tokensFromJson } from './tokens';

export function fromText(text: string, name: string, origin: 'pasted' | 'file'): Source {
  if (!text.trim()) throw new InputError(`${name} is empty: one row of numbers per line, or JSON nested arrays.`);
  if (text.length > MAX_TEXT_BYTES) {
    throw new InputError(
      `${name} is ${fmtBytes(text.length)} of text; the limit is ${fmtBytes(MAX_TEXT_BYTES)}. Save larger inputs as .npy (np.save).`,
    );
  }
  const t = text.trimStart();
  const json = t.startsWith('[') || t.startsWith('{');
  const parsed = json ? parseActivationsJson(text, name) : parseActivationsText(text, name);
  let tokens: unknown[] | null = null;
  let tokensNote: string | null = null;
  if (json) {
    try {
      tokens = tokensFromJson(text);
    } catch {
      tokensNote = `${name}: "tokens" is not a JSON array of strings; the rows keep their numbers.`;
    }
  }
  const checked = checkTokens(tokens, rowsOf(parsed.shape), `"tokens" in ${name}`);
  return memorySource(parsed.data, parsed.shape, {
    label: origin === 'pasted' ? 'pasted numbers' : name,
    origin,
    bytes: text.length,
    dtype: 'float32',
    tokens: checked.tokens,
    tokensNote: tokensNote ?? checked.note,
    gen: null,
  });
}

async function streamedNpy(file: File): Promise<Source> {
  // The package's reader checks the header and that the file holds exactly the data it promises.
  const head = await readNpyHeader(file);
  if (head.shape.length === 0) throw new InputError(`${file.name}: expected an array with a last axis d, got a scalar`);
  const d = head.shape[head.shape.length - 1]!;
  const rows = rowsOf(head.shape);
  if (d === 0 || rows === 0)
    throw new InputError(`${file.name}: the array is empty (shape [${head.shape.join(', ')}])`);
  const info: ActivationsInfo = {
    id: nextActivationsId(),
    shape: head.shape,
    rows,
    d,
    label: file.name,
    origin: 'file',
    streamed: true,
    bytes: file.size,
    dtype: head.dtype,
    tokens: null,
    tokensNote: null,
    gen: null,
  };
  return {
    info,
    data: null,
    sliceRows: Math.max(1, Math.floor(SLICE_BYTES / (d * head.itemSize))),
    async readRows(first, count) {
      const start = head.dataOffset + first * d * head.itemSize;
      const bytes = new Uint8Array(await file.slice(start, start + count * d * head.itemSize).arrayBuffer());
      return decodeNpyData(bytes, head.dtype, count * d);
    },
  };
}

async function fromFile(file: File): Promise<Source> {
  if (file.size > MAX_FILE_BYTES) {
    throw new InputError(`${file.name} is ${fmtBytes(file.size)}; the limit is 1 GB. Split it into smaller files.`);
  }
  if (!isNpy(new Uint8Array(await file.slice(0, 6).arrayBuffer())))
    return fromText(await file.text(), file.name, 'file');
  if (file.size > STREAM_BYTES) return streamedNpy(file);
  const res = readNpy(new Uint8Array(await file.arrayBuffer()), file.name);
  return memorySource(res.data, [...res.shape], {
    label: file.name,
    origin: 'file',
    bytes: file.size,
    dtype: res.dtype,
    tokens: null,
    tokensNote: null,
    gen: null,
  });
}

/** A file of activations, with an optional file of tokens that label its rows. */
export async function fromFiles(file: File, tokensFile: File | null): Promise<Source> {
  const source = await fromFile(file);
  if (tokensFile) {
    let list: unknown[] | null = null;
    let note: string | null = null;
    try {
      list = tokensFromFile(await tokensFile.text());
    } catch {
      note = `${tokensFile.name} is neither a JSON array of strings nor one token per line; the rows keep their numbers.`;
    }
    const checked = checkTokens(list, source.info.rows, tokensFile.name);
    source.info.tokens = checked.tokens;
    source.info.tokensNote = note ?? checked.note;
  }
  return source;
}
