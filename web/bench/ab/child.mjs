// Node only: one A/B measurement in a process of its own (ab/run.mjs starts several). Argument: a
// JSON { head, ref (entry paths), headFirst, ids, rounds, f32stats (a .wasm path, or null) };
// prints the result of ab/measure.mjs as JSON on stdout, and nothing else there.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { createF32Stats } from '../f32stats.mjs';
import { measure } from './measure.mjs';

const spec = JSON.parse(process.argv[2]);
const load = async (entry) => {
  const pkg = await import(pathToFileURL(entry).href);
  return { pkg, rt: await pkg.init({ backend: 'simd' }) };
};
// Which build loads first changes where its code and data land; the runner alternates it.
const [first, second] = spec.headFirst ? [spec.head, spec.ref] : [spec.ref, spec.head];
const loaded = [await load(first), await load(second)];
const [head, ref] = spec.headFirst ? loaded : [loaded[1], loaded[0]];
const f32stats = spec.f32stats ? await createF32Stats(readFileSync(spec.f32stats)) : null;
const gc = typeof globalThis.gc === 'function' ? globalThis.gc : null;
const result = await measure({ head, ref, ids: spec.ids, rounds: spec.rounds, f32stats, gc });
process.stdout.write(JSON.stringify(result));
