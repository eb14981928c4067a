/** The lab's verdict as plain text and JSON: everything needed to reproduce and judge the comparison. */
import { NORM_FORMS } from 'layernorm-wasm';
import type { ElementView, LabFileResult } from '../engine/protocol';
import type { PageState } from '../state';
import { fmtF32, hex32 } from './format';

const tolNum = (v: number) => (v === 0 || v >= 1e-3 ? String(v) : v.toExponential());

function tolText(t: PageState['tolerance']): string {
  return t.mode === 'ulp' ? `sULP ≤ ${tolNum(t.ulp)}` : `|y − e| ≤ ${tolNum(t.atol)} + ${tolNum(t.rtol)}·|e|`;
}

function element(e: ElementView | null) {
  if (!e) return null;
  const v = (x: number) => ({ value: fmtF32(x), bits: hex32(x) });
  return {
    row: e.row,
    feature: e.feature,
    input: v(e.x),
    thisLibrary: v(e.ours),
    expected: v(e.expected),
    exact: v(e.exact),
    absError: e.abs,
    sulp: e.sulp,
  };
}

export function reportJson(s: Readonly<PageState>): Record<string, unknown> | null {
  const lab = s.lab.result;
  if (!lab || !s.weights || !s.activations) return null;
  return {
    tool: 'layernorm-wasm correctness lab',
    date: new Date().toISOString(),
    engine: { backend: s.engine.backend, kernel: s.engine.kernel },
    weights: { source: s.weights.label, detail: s.weights.detail, d: s.weights.d },
    layer: { variant: lab.params.form, eps: lab.params.eps },
    input: { name: s.activations.label, shape: s.activations.shape },
    tolerance: { ...lab.tolerance, text: tolText(lab.tolerance) },
    thisLibraryVsExact: lab.ours,
    files: lab.files.map((f: LabFileResult) => ({
      name: f.name,
      shape: f.shape,
      verdict: f.shapeError ? 'SHAPE MISMATCH' : f.pass ? 'PASS' : 'FAIL',
      shapeError: f.shapeError,
      shapeNote: f.shapeNote,
      valuesCompared: f.values,
      failingValues: f.failingValues,
      failingRows: f.failingRows,
      rows: f.rows,
      maxAbsError: f.maxAbs,
      maxSulp: f.maxSulp,
      nonFiniteInBoth: f.nonFiniteBoth,
      nonFiniteMismatches: f.nonFiniteMismatches,
      worst: element(f.worst),
      expectedVsExact: f.vsExact,
    })),
  };
}

export function reportText(s: Readonly<PageState>): string {
  const j = reportJson(s);
  const lab = s.lab.result;
  if (!j || !lab) return '';
  const w = s.weights!;
  const a = s.activations!;
  const lines = [
    'layernorm-wasm correctness lab',
    `engine:     ${s.engine.backend} build, kernel ${s.engine.kernel}`,
    `weights:    ${w.label} (${w.detail}), d = ${w.d}`,
    `layer:      ${NORM_FORMS[lab.params.form].label}, ε = ${lab.params.eps}`,
    `input:      ${a.label} [${a.shape.join(', ')}]`,
    `tolerance:  ${tolText(lab.tolerance)}`,
    `this library vs exact (float64, rounded once): max ${lab.ours.maxSulp.toPrecision(3)} sULP, ` +
      `max |diff| ${lab.ours.maxAbs.toExponential(2)}, ${lab.ours.bitIdentical} of ${lab.ours.compared} values bit-identical`,
  ];
  for (const f of lab.files) {
    lines.push('');
    if (f.shapeError) {
      lines.push(`${f.name}: SHAPE MISMATCH — ${f.shapeError}`);
      continue;
    }
    lines.push(
      `${f.name} [${f.shape.join(', ')}]: ${f.pass ? 'PASS' : 'FAIL'} — ${f.failingValues} of ${f.values + f.nonFiniteBoth + f.nonFiniteMismatches} values ` +
        `fail in ${f.failingRows} of ${f.rows} rows; max |y − e| ${f.maxAbs.toExponential(2)}, max ${f.maxSulp.toPrecision(3)} sULP`,
    );
    if (f.shapeNote) lines.push(`  note: ${f.shapeNote}`);
    if (f.nonFiniteBoth || f.nonFiniteMismatches) {
      lines.push(`  non-finite: ${f.nonFiniteBoth} in both (same class), ${f.nonFiniteMismatches} mismatched`);
    }
    lines.push(
      `  ${f.name} vs exact: max ${f.vsExact.maxSulp.toPrecision(3)} sULP, ${f.vsExact.bitIdentical} of ${f.vsExact.compared} bit-identical`,
    );
    const e = f.worst;
    if (e) {
      lines.push(`  worst element: row ${e.row}, feature ${e.feature}`);
      for (const [name, v] of [
        ['input x', e.x],
        ['this library', e.ours],
        [f.name, e.expected],
        ['exact', e.exact],
      ] as const) {
        lines.push(`    ${name.padEnd(14)} ${fmtF32(v).padStart(16)}  ${hex32(v)}`);
      }
    }
  }
  return lines.join('\n');
}
