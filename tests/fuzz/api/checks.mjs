// The api target's checks of one call: a catalogue error or the same result as on plain copies, an
// unchanged heap and a runtime that still computes the probe right.
import fc from 'fast-check';
import { init } from '../../../dist/index.js';
import { FuzzFailure, describeError, fail, sameBits } from '../oracle.mjs';
import { documentedError } from './catalogue.mjs';
import { invoke } from './invoke.mjs';
import { WasmView, usesWasmMemory } from './views.mjs';

function outcome(run) {
  try {
    return { ok: true, value: run() };
  } catch (e) {
    if (e instanceof FuzzFailure) throw e;
    return { ok: false, error: e };
  }
}

/** Whether two results of one op are the same, bit for bit. */
function sameResult(a, b) {
  if (ArrayBuffer.isView(a)) return ArrayBuffer.isView(b) && a.constructor === b.constructor && sameBits(a, b);
  if (a === null || typeof a !== 'object') return Object.is(a, b);
  if (b === null || typeof b !== 'object') return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => sameResult(a[k], b[k]));
}

async function checkInit(ctx, call) {
  let runtime;
  try {
    runtime = await init(call.initOptions);
  } catch (e) {
    ctx.count(documentedError('init', e));
    return;
  }
  const asked = call.initOptions?.backend;
  const expected = asked === 'scalar' ? 'scalar' : 'simd';
  if (runtime.backend !== expected) fail(`init(${fc.stringify(call.initOptions)}) gave backend ${runtime.backend}`);
}

/** One input of the target; throws FuzzFailure on a violation. */
export async function checkApiCall(ctx, call) {
  await ctx.ready();
  ctx.counts.calls++;
  if (call.op === 'init') return checkInit(ctx, call);
  const { rt } = ctx;
  const before = rt.heapInUse();
  const wasm = [
    call.x,
    call.tensorData,
    call.d,
    call.row,
    call.out,
    call.offset,
    call.tensorRows,
    call.options,
    call.onnx,
    call.shape,
  ].some((v) => usesWasmMemory(v));
  // The same call on plain copies, taken before the call itself may write into the pool.
  const plain = wasm ? outcome(() => invoke(rt, call, ctx.arguments(call, true), ctx.foreign)) : null;
  if (plain && !plain.ok) documentedError(call.op, plain.error);
  const growths = ctx.growth.growths;
  const arg = ctx.arguments(call, false);
  const run = () => invoke(rt, call, arg, ctx.foreign);
  const real = outcome(() => (call.grow ? ctx.growth.during(run) : run()));
  const grew = ctx.growth.growths > growths;
  let refusedSharing = false;
  if (real.ok) {
    const y = call.op === 'layerNorm' || call.op === 'rmsNorm' ? real.value.y : real.value;
    if (['layerNorm', 'rmsNorm', 'forward', 'forwardRms'].includes(call.op)) {
      // (A view of wasm memory handed in is detached if the call grew memory: its length is now 0.)
      const length = call.x instanceof WasmView ? call.x.length : arg.seen.x.length;
      const given = call.x instanceof WasmView ? call.x.type : arg.seen.x instanceof Float32Array ? 'f32' : 'u16';
      const kind = given === 'f32' ? Float32Array : Uint16Array;
      if (!(y instanceof kind) || y.length !== length) fail('a result of the wrong kind or shape');
      const out = call.op === 'layerNorm' || call.op === 'rmsNorm' ? arg.seen.options?.out : arg.seen.out;
      if (out === undefined && y.buffer === ctx.pool.view.buffer) fail('a new result aliases wasm memory');
    }
    if (grew) ctx.counts.grewAndReturned++;
  } else {
    const name = documentedError(call.op, real.error);
    ctx.count(name);
    refusedSharing = name === 'outputs share memory';
    if (grew) ctx.counts.grewAndThrew++;
  }
  if (plain) {
    ctx.counts.wasmArguments++;
    // Views of wasm memory can make two outputs share memory, which plain copies never do.
    const sharing = refusedSharing && plain.ok;
    if (plain.ok !== real.ok && !sharing) {
      fail(
        `with views of wasm memory the call ${real.ok ? 'returned' : `threw ${describeError(real.error)}`}, on plain copies it ${plain.ok ? 'returned' : `threw ${describeError(plain.error)}`}`,
      );
    }
    if (real.ok && !sameResult(real.value, plain.value))
      fail('with views of wasm memory the result differs from plain copies');
    if (
      !real.ok &&
      !plain.ok &&
      (real.error.constructor !== plain.error.constructor || real.error.message !== plain.error.message)
    ) {
      const memory = /of wasm memory/.test(real.error.message) && /of wasm memory/.test(plain.error.message);
      if (!memory && !refusedSharing)
        fail(`views and plain copies threw differently: ${describeError(real.error)} / ${describeError(plain.error)}`);
    }
  }
  if (rt.heapInUse() !== before)
    fail(
      `heapInUse went from ${before} to ${rt.heapInUse()} (${real.ok ? 'a call that returned' : 'a rejected call'})`,
    );
  ctx.checkWorking();
}
