/**
 * The zoom fields of view 'all' (features from … to …, reset, the hint), built the first time that
 * view is chosen: most readers stay with the window of 8.
 */
import type { h as build } from './dom.js';

/** `h` is the element's own (passed in, so that this chunk imports nothing of the element's). */
export function zoomControls(
  h: typeof build,
  typed: () => void,
  reset: () => void,
): { nodes: HTMLElement[]; from: HTMLInputElement; to: HTMLInputElement } {
  const field = (id: string) => {
    const input = h('input', { type: 'number', id, min: 0, step: 1, 'aria-describedby': 'ex-start-msg' });
    input.addEventListener('change', typed);
    return input;
  };
  const from = field('ex-zoom-from');
  const to = field('ex-zoom-to');
  const button = h('button', { type: 'button', id: 'ex-zoom-reset' }, 'Reset zoom');
  button.addEventListener('click', reset);
  const nodes = [
    h('label', { for: 'ex-zoom-from' }, 'Features from'),
    from,
    h('label', { for: 'ex-zoom-to' }, 'to'),
    to,
    button,
    h(
      'span',
      { class: 'hint', id: 'ex-zoom-hint' },
      h('span', { class: 'pointer-only' }, 'or drag across a chart'),
      h('span', { class: 'touch-only' }, 'type the range to zoom'),
    ),
  ];
  return { nodes, from, to };
}
