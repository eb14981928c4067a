// mulberry32: a tiny seeded generator, so every generated case is the same on every run. The one
// copy: plain ESM with its types beside it, imported by the tests, the fuzz script, the page's
// sample activations and the benchmark's data.
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
