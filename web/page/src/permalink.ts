/**
 * The page's state in its URL: weights source, norm form, ε, the generated sample, the row, the
 * features shown and the scale. Only values that differ from the defaults are written, and a value
 * that does not parse is ignored (the default stays), so any link opens a working page.
 */
import { DEFAULT_NORM, NORM_FORM_NAMES, NORM_FORMS } from 'layernorm-wasm';
import type { Preset } from './engine/protocol';
import { initialState, parseEps, type PageState, type PageStore, type Scale, type WeightsSource } from './state';

type Linked = Pick<
  PageState,
  'weightsSource' | 'form' | 'epsText' | 'eps' | 'epsOrigin' | 'gen' | 'row' | 'view' | 'windowStart' | 'zoom' | 'scale'
>;

/** The presets (LayerNorm's forms) a link can name, by their permalink codes (norms.ts). */
const PRESETS = NORM_FORM_NAMES.filter((form) => NORM_FORMS[form].norm === DEFAULT_NORM).map(
  (form) => [NORM_FORMS[form].url, form as Preset] as const,
);

const defaults = initialState();

function whole(v: string | null, lo: number, hi: number): number | null {
  if (v === null || !/^\d+$/.test(v)) return null;
  const n = Number(v);
  return n >= lo && n <= hi ? n : null;
}

export function decodePermalink(params: URLSearchParams): Partial<Linked> {
  const out: Partial<Linked> = {};
  const w = params.get('w');
  if (w === 'hf') out.weightsSource = { kind: 'hf' };
  else if (w === 'synthetic')
    out.weightsSource = { kind: 'synthetic', seed: whole(params.get('ws'), 0, 2 ** 31 - 1) ?? 1 };
  else if (w && /^https?:\/\//i.test(w)) out.weightsSource = { kind: 'url', url: w };
  const v = PRESETS.find(([code]) => code === params.get('v'));
  if (v) out.form = v[1];
  const eps = params.get('eps');
  if (eps !== null && parseEps(eps) !== null) {
    out.epsText = eps;
    out.eps = parseEps(eps);
    out.epsOrigin = 'typed';
  }
  const B = whole(params.get('b'), 1, 64);
  const T = whole(params.get('t'), 1, 4096);
  const seed = whole(params.get('seed'), 0, 2 ** 31 - 1);
  if (B !== null || T !== null || seed !== null) {
    const gen = { B: B ?? defaults.gen.B, T: T ?? defaults.gen.T, seed: seed ?? defaults.gen.seed };
    if (gen.B * gen.T <= 8192) out.gen = gen;
  }
  const row = whole(params.get('row'), 0, 2 ** 31 - 1);
  if (row !== null) out.row = row;
  const view = params.get('view');
  if (view === 'all' || view === 'window') out.view = view;
  const f = whole(params.get('f'), 0, 1 << 20);
  if (f !== null) out.windowStart = f;
  const from = whole(params.get('from'), 0, 1 << 20);
  const to = whole(params.get('to'), 0, 1 << 20);
  if (from !== null && to !== null && to - from >= 3) out.zoom = { from, to };
  const scale = params.get('scale');
  if (scale === 'symlog' || scale === 'linear' || scale === 'own') out.scale = scale as Scale;
  return out;
}

function sourceParams(s: WeightsSource, p: URLSearchParams): void {
  if (s.kind === 'synthetic') {
    p.set('w', 'synthetic');
    if (s.seed !== 1) p.set('ws', String(s.seed));
  } else if (s.kind === 'url') p.set('w', s.url);
  // hf is the default; a local file cannot be linked.
}

export function encodePermalink(s: Readonly<Linked>, { embed = false } = {}): URLSearchParams {
  const p = new URLSearchParams();
  if (s.weightsSource.kind !== 'file') sourceParams(s.weightsSource, p);
  if (s.form !== defaults.form) p.set('v', NORM_FORMS[s.form].url);
  // A checkpoint's own ε comes back with the checkpoint; only a chosen one is written.
  if (s.eps !== null && s.epsOrigin === 'typed' && s.eps !== defaults.eps) p.set('eps', s.epsText.trim());
  if (s.gen.B !== defaults.gen.B) p.set('b', String(s.gen.B));
  if (s.gen.T !== defaults.gen.T) p.set('t', String(s.gen.T));
  if (s.gen.seed !== defaults.gen.seed) p.set('seed', String(s.gen.seed));
  if (s.row !== defaults.row) p.set('row', String(s.row));
  if (s.view !== defaults.view) p.set('view', s.view);
  if (s.view === 'window' && s.windowStart !== defaults.windowStart) p.set('f', String(s.windowStart));
  if (s.view === 'all' && s.zoom) {
    p.set('from', String(s.zoom.from));
    p.set('to', String(s.zoom.to));
  }
  if (s.scale !== defaults.scale) p.set('scale', s.scale);
  if (embed) p.set('embed', 'explain');
  return p;
}

/** The page's address for this state. */
export function permalink(s: Readonly<Linked>, options?: { embed?: boolean }): string {
  const q = encodePermalink(s, options).toString();
  return `${location.origin}${location.pathname}${q ? `?${q}` : ''}`;
}

/** Keeps the address bar in step with the state (replaceState: no history entry per keystroke). */
export function syncAddressBar(store: PageStore): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  store.watch(['weightsSource', 'form', 'eps', 'gen', 'row', 'view', 'windowStart', 'zoom', 'scale'], (s) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const url = permalink(s);
      if (url !== location.href) history.replaceState(null, '', url);
    }, 200);
  });
}
