/** The worker stopped answering: its script failed to load, it threw outside a call, or it exited. */
export class WorkerError extends Error {
  override name = 'WorkerError';
}
