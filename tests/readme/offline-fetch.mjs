// Node's side of "the internet is served from local fixtures": a fetch installed before a README
// example (or the command line it shows) runs. Requests to the Hugging Face Hub go to the local
// range server at LNW_README_HUB (its /range/<path> answers https://huggingface.co/<path>, Range
// headers and all); requests to 127.0.0.1 and localhost pass; anything else is refused, as a
// network error, without leaving the machine. Loaded with `node --import` or imported first.
const hub = process.env.LNW_README_HUB;
if (!hub) throw new Error('offline-fetch.mjs: LNW_README_HUB (the local server standing in for the Hub) is not set');
const nodeFetch = globalThis.fetch;
const HUB_HOSTS = new Set(['huggingface.co', 'hf.co']);
const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

globalThis.fetch = function offlineFetch(input, init) {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (HUB_HOSTS.has(url.hostname) && url.protocol === 'https:') {
    return nodeFetch(
      `${hub}/range${url.pathname}`,
      input instanceof Request ? { ...init, headers: input.headers } : init,
    );
  }
  if (LOCAL_HOSTS.has(url.hostname) || url.protocol === 'data:' || url.protocol === 'blob:')
    return nodeFetch(input, init);
  return Promise.reject(
    new TypeError(`fetch failed: the README tests reach no other machine, and ${url.href} is not served locally`),
  );
};
