/** What the HTTP readers share: a cancelled signal's reason, and a body given up on. */

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/** Stops a response's transfer (its rest is not wanted). */
export async function cancel(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}
