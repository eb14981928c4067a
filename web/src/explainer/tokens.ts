/**
 * The token picker: the rows as a horizontal listbox of their tokens (or row numbers), the
 * selected one marked. A click, or the arrow keys, Home, End, Page Up and Page Down while it has
 * focus, pick a row. Long inputs show a window of rows around the selected one.
 */
import { h } from './dom.js';
import { showToken } from './format.js';

/** Rows shown at once, around the selected one. */
const WINDOW = 160;

export class TokenPicker {
  readonly element: HTMLElement;
  #rows = 0;
  #row = 0;
  #tokens: readonly string[] | null = null;
  #shape: readonly number[] | null = null;

  constructor(
    private readonly idPrefix: string,
    private readonly onPick: (row: number) => void,
  ) {
    this.element = h('div', {
      class: 'tokens',
      role: 'listbox',
      tabindex: 0,
      'aria-orientation': 'horizontal',
      'aria-label': 'Tokens: pick one to explain',
      part: 'tokens',
    });
    this.element.addEventListener('click', (e) => {
      const option = (e.target as Element).closest<HTMLElement>('[role="option"]');
      if (option?.dataset.row) this.#pick(Number(option.dataset.row));
    });
    this.element.addEventListener('keydown', (e) => this.#key(e));
  }

  render(rows: number, row: number, tokens: readonly string[] | null, shape: readonly number[] | null): void {
    this.#rows = rows;
    this.#row = row;
    this.#tokens = tokens;
    this.#shape = shape;
    if (!rows) {
      this.element.replaceChildren();
      this.element.removeAttribute('aria-activedescendant');
      return;
    }
    const first = Math.max(0, Math.min(rows - WINDOW, row - (WINDOW >> 1)));
    const last = Math.min(rows, first + WINDOW);
    const options: Node[] = [];
    if (first > 0) options.push(h('span', { class: 'more', 'aria-hidden': 'true' }, `… ${first}`));
    for (let r = first; r < last; r++) {
      const selected = r === row;
      options.push(
        h(
          'span',
          {
            role: 'option',
            id: `${this.idPrefix}-${r}`,
            class: selected ? 'token active' : 'token',
            'aria-selected': String(selected),
            'aria-setsize': rows,
            'aria-posinset': r + 1,
            'data-row': r,
            title: this.#title(r),
          },
          this.#label(r),
        ),
      );
    }
    if (last < rows) options.push(h('span', { class: 'more', 'aria-hidden': 'true' }, `${rows - last} more …`));
    this.element.replaceChildren(...options);
    // Only an option that is there: a row out of range has none to point at.
    if (row < first || row >= last) this.element.removeAttribute('aria-activedescendant');
    else this.element.setAttribute('aria-activedescendant', `${this.idPrefix}-${row}`);
    // Scroll the list (never the page) to the selected token.
    const selected = this.element.querySelector<HTMLElement>('[aria-selected="true"]');
    if (selected && this.element.clientHeight) {
      const top = selected.offsetTop - this.element.offsetTop;
      if (
        top < this.element.scrollTop ||
        top + selected.offsetHeight > this.element.scrollTop + this.element.clientHeight
      ) {
        this.element.scrollTop = Math.max(0, top - this.element.clientHeight / 2);
      }
    }
  }

  #label(r: number): string {
    const t = this.#tokens?.[r];
    if (t !== undefined) return showToken(t);
    const shape = this.#shape;
    if (shape && shape.length === 3) return `${Math.floor(r / shape[1]!)}·${r % shape[1]!}`;
    return String(r);
  }

  #title(r: number): string {
    const shape = this.#shape;
    if (this.#tokens) return `row ${r}`;
    return shape && shape.length === 3
      ? `row ${r}: batch ${Math.floor(r / shape[1]!)}, position ${r % shape[1]!}`
      : `row ${r}`;
  }

  #pick(row: number): void {
    const r = Math.max(0, Math.min(this.#rows - 1, row));
    if (r !== this.#row) this.onPick(r);
  }

  #key(e: KeyboardEvent): void {
    const steps: Record<string, number> = {
      ArrowLeft: -1,
      ArrowUp: -1,
      ArrowRight: 1,
      ArrowDown: 1,
      PageUp: -10,
      PageDown: 10,
    };
    let target: number | null = null;
    if (e.key in steps) target = this.#row + steps[e.key]!;
    else if (e.key === 'Home') target = 0;
    else if (e.key === 'End') target = this.#rows - 1;
    if (target === null || !this.#rows) return;
    e.preventDefault();
    this.#pick(target);
  }
}
