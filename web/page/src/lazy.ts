/**
 * Cards mounted when they come near: a card's code (and its chart library) loads once the card
 * is within 400 px of the viewport. What the visitor did to its controls before that (a value
 * typed, a choice made, a file picked) is kept: the values are put back after the panel has
 * mounted (mounting fills the controls from the store) and then handed to the panel as input.
 */
import type { PageStore } from './state';

type Mount = (store: PageStore, root: HTMLElement) => void;

interface Edit {
  input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  value: string;
  checked: boolean;
}

function edited(e: Element): boolean {
  if (e instanceof HTMLSelectElement) return [...e.options].some((o) => o.selected !== o.defaultSelected);
  if (e instanceof HTMLTextAreaElement) return e.value !== e.defaultValue;
  if (!(e instanceof HTMLInputElement)) return false;
  if (e.type === 'file') return (e.files?.length ?? 0) > 0;
  if (e.type === 'radio' || e.type === 'checkbox') return e.checked !== e.defaultChecked && e.checked;
  return e.value !== e.defaultValue;
}

export function whenNear(store: PageStore, card: HTMLElement, load: () => Promise<Mount>): void {
  const io = new IntersectionObserver(
    (entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      io.disconnect();
      void load().then((mount) => {
        const edits: Edit[] = [...card.querySelectorAll<Edit['input']>('input, select, textarea')]
          .filter(edited)
          .map((input) => ({ input, value: input.value, checked: input instanceof HTMLInputElement && input.checked }));
        mount(store, card);
        // Every value back first: a panel reading one control on an event reads the others too.
        for (const { input, value, checked } of edits) {
          if (input instanceof HTMLInputElement && (input.type === 'radio' || input.type === 'checkbox')) {
            input.checked = checked;
          } else if (!(input instanceof HTMLInputElement && input.type === 'file')) input.value = value;
        }
        for (const { input } of edits) {
          input.dispatchEvent(new Event('input', { bubbles: true }));
          input.dispatchEvent(new Event('change', { bubbles: true }));
        }
        card.dataset.mounted = 'true';
      });
    },
    { rootMargin: '0px 0px 400px 0px' },
  );
  io.observe(card);
}
