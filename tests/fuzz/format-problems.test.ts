// The FormatError problems the fuzz oracle accepts (format-problems.mjs) and the ones the error
// catalogue quotes (web/docs/errors.md) are one list: every pattern has an example in the
// catalogue, and every FormatError message the catalogue quotes matches a pattern of its format.
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM module shared with web/scripts/fuzz.mjs
import { CONFIG_PROBLEMS, FORMAT_PROBLEMS, ONNX_CAPTURE_PROBLEMS } from './format-problems.mjs';
import { errorsRows } from '../kit/catalogue/rows.mjs';

type Format = 'npy' | 'safetensors' | 'gguf' | 'json' | 'text' | 'onnx';
const ACCEPTED = FORMAT_PROBLEMS as Record<Format, RegExp[]>;
/** What a catalogue example of each format may state: config.json's problems are json too, capture's onnx. */
const PATTERNS: Record<Format, RegExp[]> = {
  ...ACCEPTED,
  json: [...ACCEPTED.json, ...(CONFIG_PROBLEMS as RegExp[])],
  onnx: [...ACCEPTED.onnx, ...(ONNX_CAPTURE_PROBLEMS as RegExp[])],
};

const QUOTED = /invalid (npy|safetensors|gguf|json|text|onnx): (.*)$/s;
const ROWS = errorsRows();

interface Example {
  format: Format;
  problem: string;
  line: number;
}

/** Every FormatError message quoted in the catalogue's rows (a code span holding "invalid <format>: "). */
function examples(): Example[] {
  const out: Example[] = [];
  for (const row of ROWS) {
    for (const span of [row.input, row.text, row.test].flatMap((cell) => [...cell.matchAll(/`([^`]+)`/g)])) {
      const m = QUOTED.exec(span[1]!);
      if (!m) continue;
      // The problem is what FormatError puts between "invalid <format>: " and " (line L, column C)".
      out.push({ format: m[1] as Format, problem: m[2]!.replace(/ \(line \d+, column \d+\)$/, ''), line: row.line });
    }
  }
  return out;
}

/** Rows whose error column says FormatError, with their message column. */
function formatErrorRows(): Array<{ line: number; message: string }> {
  return ROWS.filter((r) => /FormatError/.test(r.error)).map((r) => ({ line: r.line, message: r.text }));
}

describe('the FormatError problems of format-problems.mjs and of the catalogue are one list', () => {
  const quoted = examples();

  it('the catalogue quotes FormatErrors of every format (the extraction finds them)', () => {
    for (const format of Object.keys(PATTERNS))
      expect(
        quoted.some((e) => e.format === format),
        format,
      ).toBe(true);
  });

  it('every pattern has an example in web/docs/errors.md', () => {
    const missing: string[] = [];
    for (const [format, patterns] of Object.entries(PATTERNS) as Array<[Format, RegExp[]]>) {
      for (const pattern of patterns) {
        // A pattern shared by several formats (the weight loaders') needs an example in one of them.
        const formats = (Object.keys(PATTERNS) as Format[]).filter((f) => PATTERNS[f].includes(pattern));
        if (!quoted.some((e) => formats.includes(e.format) && pattern.test(e.problem)))
          missing.push(`${format}: ${pattern}`);
      }
    }
    expect([...new Set(missing)]).toEqual([]);
  });

  it('every FormatError the catalogue quotes states a problem of format-problems.mjs', () => {
    const unknown = quoted
      .filter((e) => !PATTERNS[e.format].some((pattern) => pattern.test(e.problem)))
      .map((e) => `errors.md:${e.line}: invalid ${e.format}: ${e.problem}`);
    expect(unknown).toEqual([]);
  });

  it('every FormatError row of the catalogue quotes at least one whole message', () => {
    const rows = formatErrorRows();
    expect(rows.length).toBeGreaterThan(40);
    // A message column of "—" (the fuzz row, #69) states a rule about messages, not one of its own.
    const bare = rows
      .filter((r) => r.message !== '—')
      .filter((r) => ![...r.message.matchAll(/`([^`]+)`/g)].some((s) => QUOTED.test(s[1]!)));
    expect(bare.map((r) => `errors.md:${r.line}: ${r.message}`)).toEqual([]);
  });

  it('the patterns accept only what the code can produce: byte counts are never negative', () => {
    // readNpy and readNpyHeader check that the header fits in the file before they count the data
    // bytes after it, so "the file has" is never followed by a minus sign.
    const negative = 'shape (4,) of float32 needs 16 data bytes, the file has -4';
    expect(ACCEPTED.npy.filter((pattern) => pattern.test(negative))).toEqual([]);
    expect(ACCEPTED.npy.some((pattern) => pattern.test(negative.replace('-4', '4')))).toBe(true);
  });
});
