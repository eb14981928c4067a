/**
 * Connects the store to the engine worker, one service per card: the activations (sent to the
 * engine), the output (asked for whenever ε, the norm form, the weights or the activations
 * change), the checks and the timings. Only the newest request of each kind counts; an older one
 * still running is cancelled (requests.ts).
 */
import type { EngineClient } from '../engine/client';
import type { PageStore } from '../state';
import { errorText } from '../ui/format';
import { startActivations } from './activations';
import { startChecks } from './checks';
import type { PendingActivations } from './large-file';
import { startOutput } from './output';
import { latestRequests } from './requests';
import { startSpeed } from './speed';

export function startEngine(store: PageStore, engine: EngineClient): void {
  const requests = latestRequests(engine);
  const pending: PendingActivations = { info: null };
  const recompute = startOutput(store, requests, pending);
  startActivations(store, requests, pending, recompute);
  // The checks before the timing: a new output's checks are asked for first.
  startChecks(store, requests);
  startSpeed(store, requests);

  void engine.call('init', null).then(
    (r) => store.set({ engine: { status: 'ready', backend: r.backend, kernel: r.kernel, message: '' } }),
    (e: unknown) => store.set({ engine: { status: 'failed', backend: '', kernel: '', message: errorText(e) } }),
  );
}
