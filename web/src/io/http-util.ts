/** What the HTTP readers share: a cancelled signal's reason, a body given up on, and a missing one. */

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/** Stops a response's transfer (its rest is not wanted). */
export async function cancel(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

/** What a reader says of a response without a body stream (a HEAD answer, a 204, a broken fetch). */
export const noBody = (wanted: string): string => `response for ${wanted} has no body`;
