/**
 * Loads the LayerNorm weights the visitor picks, through the engine (which reads only the header
 * and the two tensors). Only the newest request can land: picking another source cancels the one
 * in flight. A failed load keeps the weights already in use (at startup, when there are none,
 * seeded synthetic weights stand in) and says what failed. A remote source that sends nothing for
 * IDLE_TIMEOUT_MS is given up on.
 */
import { Cancelled, EngineError, type Call, type EngineClient } from '../engine/client';
import type { ConfigRequest, WeightsInfo, WeightsRequest } from '../engine/protocol';
import { describeSource, type PageState, type PageStore, type Weights, type WeightsSource } from '../state';
import { errorText, fmtBytes } from '../ui/format';
import { fmtEps } from '../ui/numbers';

export const IDLE_TIMEOUT_MS = 20_000;
/** Size of GPT-2 small's model.safetensors, for the label when a server does not say. */
const GPT2_CHECKPOINT_BYTES = 548_105_171;
const DEFAULT_D = 768;

function toWeights(info: WeightsInfo, source: WeightsSource): Weights {
  const label = describeSource(source);
  if (source.kind === 'synthetic') {
    return { ...info, source, label, detail: "random, not GPT-2's", synthetic: true };
  }
  const total = info.total ?? (source.kind === 'hf' ? GPT2_CHECKPOINT_BYTES : null);
  const of = total !== null ? ` of ${fmtBytes(total)}` : '';
  const how = source.kind === 'file' ? 'read' : 'fetched with range reads';
  const dtype = info.dtype && info.dtype !== 'F32' && info.dtype !== 'float32' ? `, stored as ${info.dtype}` : '';
  return { ...info, source, label, detail: `${fmtBytes(info.bytesRead)}${of} ${how}${dtype}`, synthetic: false };
}

/** What the engine is asked to load for `source`; synthetic weights keep the width of synthetic ones before. */
function weightsRequest(
  source: WeightsSource,
  previous: Weights | null,
  file: File | undefined,
  config?: ConfigRequest,
  weight?: string,
): WeightsRequest {
  const extra = { ...(config ? { config } : {}), ...(weight ? { weight } : {}) };
  return source.kind === 'synthetic'
    ? { kind: 'synthetic', seed: source.seed, d: previous?.synthetic ? previous.d : DEFAULT_D }
    : source.kind === 'file'
      ? { kind: 'file', file: file!, ...extra }
      : source.kind === 'hf'
        ? { kind: 'gpt2' }
        : { kind: 'url', url: source.url, ...extra };
}

/** The checkpoint's ε replaces one it set before or the default, never one the visitor chose. */
function epsFor(origin: PageState['epsOrigin'], info: WeightsInfo): Partial<PageState> {
  if (origin === 'typed') return {};
  if (info.eps !== null) {
    const text = fmtEps(info.eps);
    return { epsText: text, eps: Number(text), epsOrigin: 'checkpoint' };
  }
  return origin === 'checkpoint' ? { epsText: '1e-5', eps: 1e-5, epsOrigin: 'default' } : {};
}

export function startWeightsLoader(store: PageStore, engine: EngineClient): void {
  let inFlight: Call<WeightsInfo> | null = null;

  /** The local checkpoint last picked: a tensor picked in it later reads it again. */
  let lastFile: File | undefined;

  async function load(source: WeightsSource, file?: File, config?: ConfigRequest, weight?: string): Promise<void> {
    inFlight?.cancel();
    store.set({ weightsSource: source });
    const previous = store.state.weights;
    if (source.kind === 'file' && file) lastFile = file;
    const request = weightsRequest(source, previous, file ?? lastFile, config, weight);
    const label = describeSource(source);
    let timedOut = false;
    let idle: ReturnType<typeof setTimeout> | undefined;
    const call = engine.start('loadWeights', request, {
      onProgress: (p) => {
        armIdle();
        store.set({ weightsLoad: { ...store.state.weightsLoad!, bytesRead: p.done } });
      },
    });
    inFlight = call;
    function armIdle(): void {
      clearTimeout(idle);
      if (request.kind !== 'url' && request.kind !== 'gpt2') return;
      idle = setTimeout(() => {
        timedOut = true;
        call.cancel();
      }, IDLE_TIMEOUT_MS);
    }
    armIdle();
    if (source.kind !== 'synthetic') {
      store.set({
        weightsLoad: { status: 'loading', source, label, bytesRead: 0, message: null, retry: false, candidates: [] },
      });
    }
    try {
      const info = await call.result;
      store.set({ weights: toWeights(info, source), weightsLoad: null, ...epsFor(store.state.epsOrigin, info) });
    } catch (e) {
      if (e instanceof Cancelled && !timedOut) return;
      const what = source.kind === 'hf' ? 'Hugging Face (huggingface.co)' : label;
      const reason = timedOut
        ? `no data arrived for ${IDLE_TIMEOUT_MS / 1000} s (the server is not answering).`
        : errorText(e);
      const retry = timedOut || (e instanceof EngineError && e.network);
      const candidates = e instanceof EngineError ? e.candidates : [];
      let message = `Could not load weights from ${what}: ${reason}`;
      const failed = (text: string) => ({
        weightsLoad: { status: 'failed' as const, source, label, bytesRead: 0, message: text, retry, candidates },
      });
      const current = store.state.weights;
      if (current) {
        message += ` The page keeps using ${current.label}.`;
        store.set(failed(message));
        return;
      }
      if (inFlight !== call) return; // a newer request is on its way
      // Nothing loaded yet: stand-in weights keep every section of the page working.
      message += " Meanwhile the page uses synthetic demo weights (random, not GPT-2's).";
      store.set(failed(message));
      const fallback: WeightsSource = { kind: 'synthetic', seed: 1 };
      const info = await engine.call('loadWeights', { kind: 'synthetic', seed: 1, d: DEFAULT_D });
      if (store.state.weights === null) {
        store.set({
          weightsSource: fallback,
          weights: toWeights(info, fallback),
          ...epsFor(store.state.epsOrigin, info),
        });
      }
    } finally {
      clearTimeout(idle);
      if (inFlight === call) inFlight = null;
    }
  }

  store.handle('weights/load', (a) => void load(a.source, a.file, a.config, a.weight));
}
