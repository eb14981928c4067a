/**
 * A failed weights load, with a message for the visitor, whether trying again could help, and for
 * a checkpoint that does not say which norm is its final one, the gains to pick from. Its own
 * module: the engine reports it, and weights-failure.ts (loaded only on a failure) makes it.
 */
export class WeightsError extends Error {
  override name = 'WeightsError';
  constructor(
    message: string,
    readonly network: boolean,
    readonly candidates: string[] = [],
  ) {
    super(message);
  }
}
