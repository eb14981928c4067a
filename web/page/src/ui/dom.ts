/** DOM helpers shared by the panels. Visitor-provided text only ever goes in through textContent. */

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  cls?: string,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

export function $<T extends HTMLElement = HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`missing #${id}`);
  return e as T;
}

export function setMsg(node: HTMLElement, text: string, kind: 'error' | 'warn' | 'ok' | 'info' = 'info'): void {
  node.textContent = text;
  node.dataset.kind = kind;
}

export function radioValue(root: ParentNode, name: string): string {
  return (root.querySelector(`input[name="${name}"]:checked`) as HTMLInputElement | null)?.value ?? '';
}

export function setRadio(root: ParentNode, name: string, value: string): void {
  const r = root.querySelector(`input[name="${name}"][value="${value}"]`) as HTMLInputElement | null;
  if (r) r.checked = true;
}

/** Sets an input's value unless the visitor is typing in it (so a store update never fights the caret). */
export function syncValue(input: HTMLInputElement | HTMLTextAreaElement, value: string): void {
  if (document.activeElement !== input && input.value !== value) input.value = value;
}

export function markInvalid(input: HTMLElement, invalid: boolean): void {
  if (invalid) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}

export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
