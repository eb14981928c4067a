// A page's entry: runs the check once on load (what the runner measures as the first load) and
// exposes it for the runner's later calls (e.g. the scalar backend).
import { check } from './check.js';
import { initOptions } from './init-options.js';

window.lnwCheck = (options) => check({ ...initOptions, ...options });
window.lnwCheck().then((result) => {
  window.lnwResult = result;
});
