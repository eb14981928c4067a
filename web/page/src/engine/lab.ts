/**
 * The correctness lab: expected outputs (PyTorch's, JAX's, another library's) compared with this
 * library's output on every row of the input, with the package's correctly rounded reference beside both. Large
 * expected files are read in slices, like the input.
 */
import { type LayerNormRuntime } from 'layernorm-wasm';
import { decodeNpyData, readNpy, readNpyHeader } from 'layernorm-wasm/io';
import { accumulateReference, emptyReferenceCheck, finiteClass, sulp, toExactCheck } from './checks';
import { CancelledError, type Job } from './compute';
import { normalize, normFor, paramsOf, reference, type Weights } from './norm';
import type {
  ElementView,
  ExpectedInfo,
  LabFileResult,
  LabResult,
  LabRow,
  LabRowsPage,
  LabRowsQuery,
  LayerParams,
  Tolerance,
} from './protocol';
import { InputError, MAX_FILE_BYTES, STREAM_BYTES, type Source } from './held';

export interface ExpectedFile {
  info: ExpectedInfo;
  readValues(firstValue: number, count: number): Promise<Float32Array>;
}

let nextId = 1;

export async function openExpected(file: File): Promise<ExpectedFile> {
  if (file.size > MAX_FILE_BYTES) throw new InputError(`${file.name} is larger than 1 GB, the limit.`);
  if (file.size <= STREAM_BYTES) {
    const res = readNpy(new Uint8Array(await file.arrayBuffer()), file.name);
    const data = res.data;
    return {
      info: { id: nextId++, name: file.name, shape: [...res.shape], dtype: res.dtype, bytes: file.size },
      readValues: (first, count) => Promise.resolve(data.subarray(first, first + count)),
    };
  }
  const head = await readNpyHeader(file);
  return {
    info: { id: nextId++, name: file.name, shape: head.shape, dtype: head.dtype, bytes: file.size },
    async readValues(first, n) {
      const start = head.dataOffset + first * head.itemSize;
      const bytes = new Uint8Array(await file.slice(start, start + n * head.itemSize).arrayBuffer());
      return decodeNpyData(bytes, head.dtype, n);
    },
  };
}

const fmtShape = (s: readonly number[]) => `[${s.join(', ')}]`;

/** Why two shapes cannot be compared element by element, or null when they can. */
export function shapeDifference(
  expected: readonly number[],
  actual: readonly number[],
  name: string,
): { error: string | null; note: string | null } {
  if (expected.length === actual.length && expected.every((v, i) => v === actual[i]))
    return { error: null, note: null };
  const squeeze = (s: readonly number[]) => s.filter((v) => v !== 1);
  const a = squeeze(expected);
  const b = squeeze(actual);
  if (a.length === b.length && a.every((v, i) => v === b[i])) {
    return {
      error: null,
      note: `${name} is ${fmtShape(expected)} and the output ${fmtShape(actual)}: the same once axes of size 1 are dropped.`,
    };
  }
  const count = (s: readonly number[]) => s.reduce((x, y) => x * y, 1);
  const ne = count(expected);
  const na = count(actual);
  const how =
    ne === na
      ? `Both hold ${na.toLocaleString('en-US')} values, but in a different layout, so element i of one is not element i of the other.`
      : `${name} holds ${ne.toLocaleString('en-US')} values, the output ${na.toLocaleString('en-US')}.`;
  const lastDiffers = expected[expected.length - 1] !== actual[actual.length - 1];
  const hint = lastDiffers
    ? ` The last axis (d) differs: ${expected[expected.length - 1]} vs ${actual[actual.length - 1]}.`
    : ' Save the expected output from the same input, with the same shape.';
  return {
    error: `Shapes differ: ${name} is ${fmtShape(expected)}, the output is ${fmtShape(actual)}. ${how}${hint}`,
    note: null,
  };
}

/** Per-row results of one expected file, kept for the table. */
interface RowTable {
  maxAbs: Float64Array;
  maxSulp: Float64Array;
  /** The criterion's ratio at the row's worst element (≤ 1 passes), for sorting. */
  worstRatio: Float64Array;
  worstFeature: Int32Array;
  ours: Float32Array;
  expected: Float32Array;
  failing: Uint8Array;
}

/** A file being compared: its result and row table as they fill, slice by slice. */
interface Acc {
  f: ExpectedFile;
  res: LabFileResult;
  exact: ReturnType<typeof emptyReferenceCheck>;
  table: RowTable;
  worstRatio: number;
}

/** One slice of rows: the input, this library's output, the expected file's values and the exact answer. */
interface Slice {
  first: number;
  n: number;
  d: number;
  x: Float32Array;
  y: Float32Array;
  e: Float32Array;
  ref: Float32Array;
  beta: Float32Array | null;
}

/** A file's result before any row is compared (its shape's verdict already in). */
function emptyFileResult(
  f: ExpectedFile,
  diff: { error: string | null; note: string | null },
  rows: number,
): LabFileResult {
  return {
    id: f.info.id,
    name: f.info.name,
    shape: f.info.shape,
    shapeError: diff.error,
    shapeNote: diff.note,
    rows,
    values: 0,
    failingValues: 0,
    failingRows: 0,
    maxAbs: 0,
    maxSulp: 0,
    maxSulpAt: null,
    nonFiniteBoth: 0,
    nonFiniteMismatches: 0,
    worst: null,
    vsExact: toExactCheck(emptyReferenceCheck()),
    pass: false,
  };
}

function emptyRowTable(rows: number): RowTable {
  return {
    maxAbs: new Float64Array(rows),
    maxSulp: new Float64Array(rows),
    worstRatio: new Float64Array(rows),
    worstFeature: new Int32Array(rows),
    ours: new Float32Array(rows),
    expected: new Float32Array(rows),
    failing: new Uint8Array(rows),
  };
}

/** How far past the tolerance a difference is: above 1 fails. */
function failRatio(tolerance: Tolerance): (abs: number, s: number, e: number) => number {
  return (abs, s, e) =>
    tolerance.mode === 'ulp'
      ? tolerance.ulp > 0
        ? s / tolerance.ulp
        : s > 0
          ? Infinity
          : 0
      : abs === 0
        ? 0
        : abs / (tolerance.atol + tolerance.rtol * Math.abs(e));
}

/** Compares one slice of rows of a file with this library's output, into its result and row table. */
function compareSlice(acc: Acc, slice: Slice, ratioOf: (abs: number, s: number, e: number) => number): void {
  const { first, n, d, x, y, e, ref, beta } = slice;
  const t = acc.table;
  const res = acc.res;
  for (let r = 0; r < n; r++) {
    const row = first + r;
    let rowWorst = -1;
    let rowFeature = 0;
    let rowFailing = 0;
    let rowAbs = 0;
    let rowSulp = 0;
    for (let j = 0; j < d; j++) {
      const i = r * d + j;
      const a = y[i]!;
      const b = e[i]!;
      const ca = finiteClass(a);
      const cb = finiteClass(b);
      let ratio: number;
      if (ca !== 0 || cb !== 0) {
        if (ca === cb) {
          res.nonFiniteBoth++;
          continue;
        }
        res.nonFiniteMismatches++;
        ratio = Infinity;
      } else {
        res.values++;
        const abs = Math.abs(a - b);
        const s = sulp(a, b, beta ? beta[j]! : 0);
        if (abs > rowAbs) rowAbs = abs;
        if (s > rowSulp) rowSulp = s;
        if (abs > res.maxAbs) res.maxAbs = abs;
        if (s > res.maxSulp) {
          res.maxSulp = s;
          res.maxSulpAt = { row, feature: j, ours: a, expected: b, abs };
        }
        ratio = ratioOf(abs, s, b);
      }
      if (ratio > 1) rowFailing++;
      if (ratio > rowWorst) {
        rowWorst = ratio;
        rowFeature = j;
      }
    }
    t.maxAbs[row] = rowAbs;
    t.maxSulp[row] = rowSulp;
    t.worstRatio[row] = rowWorst;
    t.worstFeature[row] = rowFeature;
    t.ours[row] = y[r * d + rowFeature]!;
    t.expected[row] = e[r * d + rowFeature]!;
    t.failing[row] = rowFailing ? 1 : 0;
    res.failingValues += rowFailing;
    if (rowFailing) res.failingRows++;
    if (rowWorst > acc.worstRatio) {
      acc.worstRatio = rowWorst;
      const i = r * d + rowFeature;
      res.worst = worstView(row, rowFeature, x[i]!, y[i]!, e[i]!, ref[i]!, beta ? beta[rowFeature]! : 0);
    }
  }
}

export class Lab {
  readonly files = new Map<number, ExpectedFile>();
  readonly #tables = new Map<number, RowTable>();

  add(f: ExpectedFile): void {
    this.files.set(f.info.id, f);
  }

  remove(id: number): void {
    this.files.delete(id);
    this.#tables.delete(id);
  }

  async run(
    rt: LayerNormRuntime,
    src: Source,
    w: Weights,
    params: LayerParams,
    tolerance: Tolerance,
    job: Job,
  ): Promise<LabResult> {
    const { rows, d, shape } = src.info;
    const norm = normFor(w, params);
    const beta = norm.beta;
    const ours = emptyReferenceCheck();
    const accs: Acc[] = [];
    const results: LabFileResult[] = [];
    for (const f of this.files.values()) {
      const diff = shapeDifference(f.info.shape, shape, f.info.name);
      const res = emptyFileResult(f, diff, rows);
      results.push(res);
      this.#tables.delete(f.info.id);
      if (diff.error) continue;
      accs.push({ f, res, exact: emptyReferenceCheck(), worstRatio: -1, table: emptyRowTable(rows) });
    }
    const ratioOf = failRatio(tolerance);
    for (let first = 0; first < rows; first += src.sliceRows) {
      if (job.cancelled) throw new CancelledError();
      const n = Math.min(src.sliceRows, rows - first);
      const x = await src.readRows(first, n);
      const y = normalize(rt, norm, x, d);
      const ref = reference(norm, x, d);
      accumulateReference(ours, y, ref, d, beta, first * d);
      for (const acc of accs) {
        const e = await acc.f.readValues(first * d, n * d);
        accumulateReference(acc.exact, e, ref, d, beta, first * d);
        compareSlice(acc, { first, n, d, x, y, e, ref, beta }, ratioOf);
      }
      job.progress({ phase: 'compare', done: first + n, total: rows });
    }
    for (const acc of accs) {
      acc.res.vsExact = toExactCheck(acc.exact);
      acc.res.pass = acc.res.failingValues === 0;
      this.#tables.set(acc.f.info.id, acc.table);
    }
    return {
      actId: src.info.id,
      weightsId: w.id,
      params: paramsOf(norm),
      tolerance,
      ours: toExactCheck(ours),
      files: results,
    };
  }

  rowsPage(q: LabRowsQuery): LabRowsPage {
    const t = this.#tables.get(q.fileId);
    if (!t) return { fileId: q.fileId, total: 0, offset: 0, rows: [] };
    const n = t.maxAbs.length;
    let order = Int32Array.from({ length: n }, (_, i) => i);
    if (q.failingOnly) order = order.filter((r) => t.failing[r] === 1);
    if (q.sort !== 'row') {
      const key = q.sort === 'abs' ? t.maxAbs : t.maxSulp;
      // Failing rows first (a non-finite mismatch has no finite error to sort by), then by error.
      order.sort((a, b) => t.failing[b]! - t.failing[a]! || key[b]! - key[a]! || a - b);
    }
    const offset = Math.max(0, Math.min(q.offset, Math.max(0, order.length - 1)));
    const rows: LabRow[] = [];
    for (let k = offset; k < Math.min(order.length, offset + q.limit); k++) {
      const r = order[k]!;
      rows.push({
        row: r,
        feature: t.worstFeature[r]!,
        abs: t.maxAbs[r]!,
        sulp: t.maxSulp[r]!,
        pass: t.failing[r] === 0,
        ours: t.ours[r]!,
        expected: t.expected[r]!,
      });
    }
    return { fileId: q.fileId, total: order.length, offset, rows };
  }
}

function worstView(
  row: number,
  feature: number,
  x: number,
  ours: number,
  expected: number,
  exact: number,
  b: number,
): ElementView {
  const both = finiteClass(ours) === 0 && finiteClass(expected) === 0;
  const fromExact = (v: number) => (finiteClass(v) === 0 && finiteClass(exact) === 0 ? sulp(v, exact, b) : NaN);
  return {
    row,
    feature,
    x,
    ours,
    expected,
    exact,
    abs: both ? Math.abs(ours - expected) : Infinity,
    sulp: both ? sulp(ours, expected, b) : Infinity,
    oursFromExact: fromExact(ours),
    expectedFromExact: fromExact(expected),
  };
}
