/** The header's status line: which WebAssembly build the engine runs, or why it could not start. */
import type { PageStore } from '../state';
import { $ } from '../ui/dom';

export function mountStatus(store: PageStore): void {
  store.watch(['engine'], (s) => {
    const node = $('runtime-status');
    const e = s.engine;
    if (e.status === 'starting') node.textContent = 'Starting the WebAssembly engine…';
    else if (e.status === 'failed') node.textContent = `The WebAssembly module could not start: ${e.message}`;
    else node.textContent = `Running on the ${e.backend === 'simd' ? 'SIMD128' : 'scalar'} build · kernel ${e.kernel}`;
    node.dataset.kind = e.status === 'failed' ? 'error' : e.status === 'ready' ? 'ok' : 'info';
  });
}
