/**
 * The element's stylesheet. Every colour and the fonts come from CSS custom properties an author
 * may set on the element (--lnx-*), with light and dark defaults; `theme="auto"` follows
 * prefers-color-scheme. Adopted as a constructed stylesheet, so a page whose Content-Security-Policy
 * forbids inline styles still styles the element.
 */

const THEMES = {
  light: {
    bg: '#ffffff',
    fg: '#1f2430',
    muted: '#5b6472',
    line: '#dfe3ea',
    surface: '#f1f3f7',
    accent: '#b4530f',
    positive: '#c2570c',
    negative: '#2166ac',
    gamma: '#b4530f',
    beta: '#2166ac',
    error: '#a3261b',
    focus: '#1a5fb4',
  },
  dark: {
    bg: '#161a22',
    fg: '#e8eaf0',
    muted: '#a9b0bd',
    line: '#363d4b',
    surface: '#212631',
    accent: '#f0a35e',
    positive: '#f0893a',
    negative: '#6ea8e6',
    gamma: '#f0a35e',
    beta: '#6ea8e6',
    error: '#ff8a80',
    focus: '#8ab4f8',
  },
} as const;

const palette = (t: keyof typeof THEMES) =>
  Object.entries(THEMES[t])
    .map(([k, v]) => `--_${k}: var(--lnx-${k}, ${v});`)
    .join('\n  ');

const CSS = `
:host {
  ${palette('light')}
  --_font:var(--lnx-font,system-ui,-apple-system,'Segoe UI',Roboto,sans-serif);
  --_mono:var(--lnx-mono-font,ui-monospace,'SFMono-Regular',Menlo,Consolas,monospace);
  display:block;container-type:inline-size;min-width:0;font-family:var(--_font);color:var(--_fg);background:var(--_bg);line-height:1.5;
}
:host([theme='dark']) { ${palette('dark')} }
@media (prefers-color-scheme:dark) { :host([theme='auto']) { ${palette('dark')} } }
:host([hidden]),[hidden] {display:none !important}
* {box-sizing:border-box}
.root {padding:var(--lnx-padding,16px 18px)}
h2 {margin:0 0 6px;font-size:1.3rem;line-height:1.3}
h3 {margin:18px 0 6px;font-size:1.05rem}
p {margin:6px 0}
.intro {max-width:64em}
.hint {color:var(--_muted);font-size:.86rem}
math {font-size:1.15em}
.eqs {display:flex;flex-wrap:wrap;align-items:center;gap:0 40px;overflow-x:auto}
.eqs math {margin:6px 0}
.tokens-row {display:flex;flex-wrap:wrap;align-items:center;gap:6px 12px;margin:8px 0}
.tokens {display:flex;flex-wrap:wrap;gap:4px;padding:4px;margin:0;max-height:7.5em;overflow-y:auto;border:1px solid var(--_line);border-radius:8px;flex:1 1 320px;min-width:0}
.tokens:focus-visible,input:focus-visible,button:focus-visible,.table-wrap:focus-visible {outline:2px solid var(--_focus);outline-offset:2px}
.token {font-family:var(--_mono);font-size:.9rem;padding:1px 7px;border-radius:4px;cursor:pointer;background:var(--_surface);color:var(--_fg);border:1px solid transparent;white-space:pre}
.token[aria-selected='true'] {background:var(--_fg);color:var(--_bg)}
.token.active {border-color:var(--_focus)}
.more {color:var(--_muted);align-self:center;padding:0 4px}
label {font-size:.92rem}
.field {display:inline-flex;flex-wrap:wrap;align-items:center;gap:4px 6px;min-width:0}
.touch-only {display:none}
@media (hover:none),(pointer:coarse) { .touch-only {display:inline} .pointer-only {display:none} }
input[type='number'] {width:6.5em;font:inherit;padding:2px 6px;color:var(--_fg);background:var(--_bg);border:1px solid var(--_muted);border-radius:5px}
input[aria-invalid='true'] {border-color:var(--_error)}
button {font:inherit;font-size:.9rem;padding:2px 10px;border-radius:5px;cursor:pointer;color:var(--_fg);background:var(--_surface);border:1px solid var(--_muted)}
.msg {color:var(--_error);font-size:.9rem;margin:2px 0}
.msg:empty {display:none}
.notice {background:var(--_surface);border-left:3px solid var(--_accent);padding:6px 10px;border-radius:4px;white-space:pre-line;overflow-wrap:anywhere}
.notice.error {border-left-color:var(--_error)}
.stats {background:var(--_surface);border-radius:8px;padding:6px 12px;margin:10px 0}
dl.facts {display:flex;flex-wrap:wrap;gap:2px 22px;margin:0}
dl.facts div {display:flex;gap:8px;align-items:baseline;min-width:0}
dl.facts dt {color:var(--_muted)}
dl.facts dd {margin:0;font-variant-numeric:tabular-nums;font-weight:600;overflow-wrap:anywhere}
dl.about dd {font-weight:normal}
.controls {display:flex;flex-wrap:wrap;gap:4px 22px;align-items:center;margin:10px 0 4px}
fieldset {border:0;padding:0;margin:0;display:inline-flex;flex-wrap:wrap;gap:2px 10px;align-items:center;min-width:0}
legend {float:left;font-weight:600;font-size:.9rem;padding:0;margin-right:6px}
fieldset label {display:inline-flex;gap:4px;align-items:center;cursor:pointer}
.stages {display:grid;gap:4px;margin-top:8px}
figure {margin:0;min-width:0}
.stage {display:grid;grid-template-columns:200px minmax(0,1fr);gap:10px;align-items:center;border-top:1px solid var(--_line);padding-top:4px}
figcaption {font-size:.86rem;color:var(--_muted)}
figcaption strong {display:block;color:var(--_fg);font-size:1rem}
.hover-val {display:block;font-family:var(--_mono);color:var(--_fg);min-height:1.3em}
.pending {color:var(--_muted);font-style:italic;padding:18px 0;margin:0}
.chart-box {min-width:0}
svg {display:block;max-width:100%;overflow:visible}
svg text {font-family:var(--_font);font-size:11px}
svg .tick {fill:var(--_muted)}
svg .value,svg .callout {fill:var(--_fg)}
svg .bad {fill:var(--_error)}
svg .grid {stroke:var(--_line)}
svg .zero {stroke:var(--_muted)}
svg .pos {fill:var(--_positive)}
svg .neg {fill:var(--_negative)}
svg .cursor {stroke:var(--_fg);stroke-dasharray:3 2}
svg .select {fill:var(--_focus);fill-opacity:.15}
svg.bars.zoomable {cursor:col-resize}
.table-wrap {overflow-x:auto;margin-top:8px;border:1px solid var(--_line);border-radius:6px}
table {border-collapse:collapse;font-size:.85rem;font-variant-numeric:tabular-nums;width:max-content;min-width:100%}
caption {text-align:left;padding:4px 8px;color:var(--_muted);font-size:.86rem}
th,td {padding:2px 8px;text-align:right;border-top:1px solid var(--_line);white-space:nowrap}
thead th {background:var(--_surface)}
tbody th {text-align:left;font-family:var(--_mono)}
@container (max-width:720px) {
  .stage {grid-template-columns:minmax(0,1fr);gap:0}
  .stage figcaption strong,.stage figcaption .sub {display:inline}
  .stage figcaption .sub::before {content:' — '}
}
@container (max-width:480px) { .root {padding:var(--lnx-padding,12px 10px)} h2 {font-size:1.15rem} .tokens {flex-basis:100%} }
`;

const sheets = new Map<string, CSSStyleSheet>();

/** A stylesheet made once and shared by every instance (the element's own by default). */
export function stylesheet(css = CSS): CSSStyleSheet {
  let sheet = sheets.get(css);
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    sheets.set(css, sheet);
  }
  return sheet;
}
