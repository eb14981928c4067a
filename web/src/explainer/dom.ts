/**
 * Building the element's DOM: HTML, SVG and MathML nodes from a tag, attributes and children.
 * Text only ever goes in as text nodes (an author's token strings included), never as markup.
 */

const NS = { svg: 'http://www.w3.org/2000/svg', math: 'http://www.w3.org/1998/Math/MathML' } as const;

export type Child = Node | string | null | undefined | false;
export type Attrs = Record<string, string | number | boolean | null | undefined>;

function fill<E extends Element>(e: E, attrs: Attrs | undefined, children: Child[]): E {
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      e.setAttribute(k, v === true ? '' : String(v));
    }
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  return fill(document.createElement(tag), attrs, children);
}

export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs?: Attrs,
  ...children: Child[]
): SVGElementTagNameMap[K] {
  return fill(document.createElementNS(NS.svg, tag), attrs, children);
}

export function math(tag: string, attrs?: Attrs, ...children: Child[]): Element {
  return fill(document.createElementNS(NS.math, tag), attrs, children);
}
