/**
 * The one place the I/O module decides which `fetch` to call. A browser's `fetch` belongs to its
 * Window or WorkerGlobalScope: called as a method of anything else (`this.fetchImpl(url)`, where
 * `fetchImpl` holds the global `fetch`) it throws "Illegal invocation", which Node's `fetch`, by
 * ignoring `this`, never shows. So the function returned here is always called as a plain function,
 * and it calls the global `fetch` by name, never through a property that holds it.
 */

/** What the readers call: a request for `url`, never bound to the caller. */
export type FetchFunction = (url: string, init: RequestInit) => Promise<Response>;

/** `given` (options.fetch) when there is one, else the environment's own fetch. */
export function fetchFunction(given: typeof fetch | undefined): FetchFunction {
  if (given !== undefined) return (url, init) => given(url, init);
  if (typeof fetch !== 'function') throw new TypeError('no fetch() in this environment: pass options.fetch');
  return (url, init) => fetch(url, init);
}
