/** Charts as wide as their boxes: one ResizeObserver for every box of an element. */
export class Sizer {
  readonly #resize = new Map<Element, (width: number) => void>();
  readonly #observer = new ResizeObserver((entries) => {
    for (const e of entries) this.#resize.get(e.target)?.(e.contentBoxSize?.[0]?.inlineSize ?? e.contentRect.width);
  });

  follow(box: Element, resize: (width: number) => void): void {
    this.#resize.set(box, resize);
    this.#observer.observe(box);
  }
}
