/**
 * What the host's `label` (or `aria-label`) and `sections` attributes change, loaded only when an
 * author sets one: the landmarks' names, and a stylesheet that hides the parts not kept.
 */

/**
 * Names the landmarks under `root` after `label` (the root itself "label", the others
 * "label: their heading"), so that several elements on a page have distinct ones; null: after
 * their own headings again.
 */
export function nameLandmarks(root: HTMLElement, label: string | null): void {
  for (const el of [root, ...root.querySelectorAll<HTMLElement>('section, [role="region"]')]) {
    const by = (el.dataset.labelledby ??= el.getAttribute('aria-labelledby') ?? '');
    if (!label) {
      el.removeAttribute('aria-label');
      el.setAttribute('aria-labelledby', by);
      continue;
    }
    const heading = root.querySelector(`#${by}`)?.textContent;
    el.removeAttribute('aria-labelledby');
    el.setAttribute('aria-label', el === root ? label : `${label}: ${heading || by}`);
  }
}

/** The parts `sections="…"` may keep (each a ::part); the others are hidden while it is set. */
const SECTIONS = [
  'title',
  'intro',
  'equation',
  'tokens',
  'statistics',
  'insight',
  'notes',
  'controls',
  'stages',
  'table',
  'weights',
  'variants',
];

export const SECTIONS_CSS = SECTIONS.map(
  (p) => `:host([sections]:not([sections~=${p}])) [part~=${p}]{display:none}`,
).join('\n');
