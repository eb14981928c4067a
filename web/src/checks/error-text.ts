/**
 * How a message that wraps another error quotes it, in one place: the package's worker and the
 * page word their messages with it. Apart from the error classes, so that it comes alone.
 */

/** An error's message, or the value thrown: for a message that already says what was being done. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
