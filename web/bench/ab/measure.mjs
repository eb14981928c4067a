// One A/B measurement: both packages loaded (in the order given), every requested call prepared in
// both and timed paired (ab/paired.mjs). Run in a process of its own by ab/run.mjs, which pools
// several such processes. Browser-compatible: the caller imports the packages.

import { EPS, makeData } from '../data.mjs';
import { f32StatsCandidate } from '../f32stats.mjs';
import { timePaired } from './paired.mjs';

// Each build's calls and timing loops from a module instance of its own (ab/calls.mjs says why).
const callsFor = (side) => import(`./calls.mjs?${side}`);

/**
 * head, ref: { pkg, rt } of the two builds. ids: the calls to time (abCalls() ids), each `rounds`
 * rounds. f32stats: createF32Stats(bytes), or null. Returns { calls: { [id]: { ratios } |
 * { missing: 'head' | 'ref', why } }, limit: ratios of HEAD's resident kernel over the
 * float32-statistics limit at [1024 × 768] (when f32stats is given) }.
 */
export async function measure({ head, ref, ids, rounds, f32stats = null, gc = null }) {
  const [forHead, forRef] = [await callsFor('head'), await callsFor('ref')];
  const opts = { rounds, gc };
  const calls = {};
  const prepare = (side, id, build) => {
    try {
      // The reference oracle is HEAD's: one definition of the right answer for both builds.
      return side.prepare(id, build.rt, head.pkg);
    } catch (e) {
      if (e?.name !== 'NotInBuild') throw e;
      return { missing: e.message };
    }
  };
  for (const id of ids) {
    const a = prepare(forHead, id, head);
    if (a.missing) {
      calls[id] = { missing: 'head', why: a.missing };
      continue;
    }
    const b = prepare(forRef, id, ref);
    if (b.missing) {
      a.dispose?.();
      calls[id] = { missing: 'ref', why: b.missing };
      continue;
    }
    calls[id] = { ratios: (await timePaired(a, b, opts)).ratios };
    a.dispose?.();
    b.dispose?.();
  }
  const limit = f32stats ? await limitRatios(head.rt, f32stats, opts) : null;
  return { calls, limit };
}

/** HEAD's resident forwardTensor over the float32-statistics kernel at [1024 × 768], paired. */
async function limitRatios(rt, f32stats, opts) {
  const rows = 1024,
    d = 768;
  const data = makeData(rows, d);
  const ln = rt.createLayerNorm(d, { gamma: data.gamma, beta: data.beta, eps: EPS });
  const tin = rt.allocate(rows, d);
  const tout = rt.allocate(rows, d);
  tin.set(data.x);
  const limit = f32StatsCandidate(f32stats, rows, d, data, EPS);
  const [kernelLoop, limitLoop] = [await callsFor('kernel'), await callsFor('limit')];
  const a = { sample: kernelLoop.sampler(() => ln.forwardTensor(tin, tout)) };
  const b = { sample: limitLoop.sampler(limit.run) };
  const { ratios } = await timePaired(a, b, opts);
  tin.dispose();
  tout.dispose();
  ln.dispose();
  return ratios;
}
