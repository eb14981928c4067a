/**
 * Renders the page's equations with KaTeX at build time, so the page ships none of KaTeX's
 * JavaScript and only the part of its stylesheet these equations use (fonts load as the browser
 * needs them). `<!--equation:name-->` in index.html becomes the rendered HTML.
 *
 * KaTeX positions glyphs with inline `style="…"` attributes, which the page's Content-Security-Policy
 * (`style-src 'self'`) refuses in markup. Each distinct style becomes a generated class instead,
 * appended to KaTeX's stylesheet when the page imports it.
 */
import katex from 'katex';
import type { Plugin } from 'vite';

/** TeX sources, by the name used in index.html. */
export const EQUATIONS: Record<string, string> = {
  layernorm: String.raw`y_i = \gamma_i\,\frac{x_i - \mu}{\sqrt{\sigma^2 + \varepsilon}} + \beta_i`,
  biasfree: String.raw`y_i = \gamma_i\,\frac{x_i - \mu}{\sqrt{\sigma^2 + \varepsilon}}`,
  stats: String.raw`\mu = \frac{1}{d}\sum_{j=1}^{d} x_j,\qquad \sigma^2 = \frac{1}{d}\sum_{j=1}^{d} (x_j - \mu)^2`,
  rmsnorm: String.raw`y_i = \gamma_i\,\frac{x_i}{\sqrt{\frac{1}{d}\sum_{j=1}^{d} x_j^2 + \varepsilon}}`,
  rmsmain: String.raw`y_i = \gamma_i\,\frac{x_i}{\sqrt{\operatorname{mean}(x^2) + \varepsilon}} = \gamma_i\,x_i\cdot\mathrm{rstd}`,
  rmsstats: String.raw`\operatorname{mean}(x^2) = \frac{1}{d}\sum_{j=1}^{d} x_j^2`,
  logits: String.raw`\text{logits} = \mathrm{ln\_f}\big(h^{(12)}\big)\,W_E^{\top}`,
};

interface Rendered {
  html: Map<string, string>;
  /** Rules for the classes that replace inline styles. */
  css: string;
  /** Every class name the rendered HTML uses. */
  classes: Set<string>;
}

/** Moves every inline style into a class; returns the rewritten HTML and the class rules. */
export function extractStyles(html: string, classes: Map<string, string>): string {
  return html.replace(/<([a-zA-Z][\w-]*)(\s[^>]*?)?(\/?)>/g, (tag, name: string, attrs: string | undefined, close) => {
    if (!attrs || !/\sstyle="/.test(attrs)) return tag;
    const style = /\sstyle="([^"]*)"/.exec(attrs)![1]!;
    let cls = classes.get(style);
    if (!cls) {
      cls = `eqs${classes.size}`;
      classes.set(style, cls);
    }
    let rest = attrs.replace(/\sstyle="[^"]*"/, '');
    if (/\sclass="/.test(rest)) rest = rest.replace(/\sclass="([^"]*)"/, (_m, c: string) => ` class="${c} ${cls}"`);
    else rest = ` class="${cls}"${rest}`;
    return `<${name}${rest}${close}>`;
  });
}

export function renderEquations(): Rendered {
  const classes = new Map<string, string>();
  const html = new Map<string, string>();
  for (const [name, tex] of Object.entries(EQUATIONS)) {
    const out = katex.renderToString(tex, { displayMode: true, output: 'htmlAndMathml', throwOnError: true });
    html.set(name, extractStyles(out, classes));
  }
  const css = [...classes].map(([style, cls]) => `.${cls}{${style}}`).join('\n');
  const used = new Set<string>();
  for (const h of html.values()) {
    for (const m of h.matchAll(/\sclass="([^"]*)"/g)) for (const c of m[1]!.split(/\s+/)) if (c) used.add(c);
  }
  return { html, css, classes: used };
}

/** Splits a selector list at its top-level commas. */
function selectors(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(list.slice(start, i));
      start = i + 1;
    }
  }
  out.push(list.slice(start));
  return out;
}

/**
 * KaTeX's stylesheet cut down to the rules whose selectors name only classes these equations use,
 * and the @font-face rules of the font families those rules mention. KaTeX's stylesheet is a flat
 * list of rules and @font-face blocks (checked: it has no other at-rules).
 */
export function subsetKatexCss(css: string, used: Set<string>): string {
  if (/@(?!font-face)[a-z-]+/.test(css)) throw new Error('KaTeX stylesheet has at-rules the subsetter does not know');
  const rules: string[] = [];
  const faces: { family: string; text: string }[] = [];
  const families = new Set<string>(['KaTeX_Main', 'KaTeX_Math']);
  for (const m of css.matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
    const head = m[1]!.trim();
    const body = m[2]!;
    if (head === '@font-face') {
      faces.push({ family: /font-family:\s*([^;]+)/.exec(body)?.[1]?.trim() ?? '', text: m[0]!.trim() });
      continue;
    }
    const kept = selectors(head).filter((sel) => [...sel.matchAll(/\.([\w-]+)/g)].every((c) => used.has(c[1]!)));
    if (!kept.length) continue;
    rules.push(`${kept.join(',')}{${body}}`);
    for (const f of body.matchAll(/font-family:\s*([^;}]+)/g))
      for (const name of f[1]!.split(',')) families.add(name.trim());
  }
  return [...faces.filter((f) => families.has(f.family)).map((f) => f.text), ...rules].join('');
}

export function equations(): Plugin {
  let rendered: Rendered | null = null;
  const get = () => (rendered ??= renderEquations());
  return {
    name: 'page-equations',
    // Before Vite's CSS plugin, so KaTeX's relative font URLs are still resolved from its own folder.
    enforce: 'pre',
    transform(code, id) {
      if (!/[\\/]katex[\\/]dist[\\/]katex\.min\.css$/.test(id.split('?')[0]!)) return null;
      const r = get();
      return { code: `${subsetKatexCss(code, r.classes)}\n${r.css}`, map: null };
    },
    transformIndexHtml: {
      order: 'pre',
      handler: (html) =>
        html.replace(/<!--equation:(\w+)-->/g, (_m, name: string) => {
          const eq = get().html.get(name);
          if (!eq) throw new Error(`index.html asks for an unknown equation "${name}"`);
          return eq;
        }),
    },
  };
}
