// The page side of the module-Worker app: the package runs only inside the worker.
const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });

window.lnwCheck = (options) =>
  new Promise((resolve) => {
    worker.onmessage = (event) => resolve(event.data);
    worker.onerror = (event) => resolve({ error: `worker error: ${event.message}` });
    worker.postMessage(options ?? {});
  });
window.lnwCheck().then((result) => {
  window.lnwResult = result;
});
