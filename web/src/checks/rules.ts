/**
 * The rules a call must keep, each with its message written once: every check that refuses a value
 * words it here, and web/docs/errors.md quotes these messages (tests/errors/rules.test.ts renders
 * each and finds it there). The C++ core checks the same rules for its C++ users; the wasm module's
 * bindings trust the façade to have checked them (cpp/src/validate.h), and
 * tests/errors/core-rules.test.ts names, for each status the core can return, the rule here that
 * refuses the call first.
 */
import { describe } from './describe.js';

/** 'a', 'b' or 'c': a name from a fixed set, as the messages list them. */
export function oneOf(names: readonly string[]): string {
  const list = names.map((n) => `'${n}'`);
  return list.length > 1 ? `${list.slice(0, -1).join(', ')} or ${list.at(-1)}` : (list[0] ?? '');
}

/** Why an option cannot go with the fused residual's absence: what the option is for. */
const WITH_RESIDUAL = {
  bias: 'is added with the residual',
  sumOut: 'receives x + residual',
} as const;

export const RULES = {
  /** The shape of every argument message: `fn: name must be X, got Y`. */
  mustBe: (fn: string, name: string, expected: string, value: unknown) =>
    `${fn}: ${name} must be ${expected}, got ${describe(value)}`,
  /** An array whose length must match another's, and why (the same as x, one entry per row). */
  lengthAs: (fn: string, name: string, length: number | string, why: string, got: number) =>
    `${fn}: ${name} must have length ${length} (${why}), got length ${got}`,
  /** A per-feature array (gamma, beta, bias) whose length is not the row's width. */
  lengthD: (fn: string, name: string, d: number, length: number) =>
    `${fn}: ${name} must have length d = ${d}, got length ${length}`,
  /** A row wider than wasm memory can hold (the core's size overflow, refused before it). */
  widthAtMost: (fn: string, max: number, d: number) =>
    `${fn}: d must be at most ${max} (one row must fit in wasm memory), got ${d}`,
  /** An option the call has no use for, and why (RMSNorm's beta and mean, the statistics' residual). */
  noOption: (fn: string, why: string, name: string, value: unknown) =>
    `${fn}: ${why}, so no ${name} option; got ${name} ${describe(value)}`,
  /** bias or sumOut without the residual they belong to. */
  needsResidual: (fn: string, name: keyof typeof WITH_RESIDUAL, value: unknown) =>
    `${fn}: ${name} ${WITH_RESIDUAL[name]}: pass residual too (got ${name} ${describe(value)} alone)`,
  /** Two outputs in the same memory: each is written chunk by chunk, and both are kept. */
  apart: (fn: string, a: string, b: string) => `${fn}: ${a} and ${b} must not share memory (both are outputs)`,
  /**
   * The one refusal only the core can know at run time: a 16-bit row wider than its stack staging
   * with no scratch given, and no memory left to allocate one (the façade passes scratch on every
   * path, so this is a safeguard, not a path).
   */
  coreOutOfMemory: (fn: string) =>
    `${fn}: the float32 staging of a 16-bit row needs wasm memory, but no more can be reserved; use smaller inputs or process them in parts`,
} as const;

/**
 * Why the entry points refuse an option outright (RULES.noOption's `why`): a norm without a bias
 * term or a mean (web/src/norms.ts, by its display name), and the statistics, which are of x alone.
 */
export const NO_OPTION_BECAUSE = {
  noBias: (norm: string) => `${norm} has no bias term`,
  noMean: (norm: string) => `${norm} has no mean`,
  statisticsOfX: () => 'statistics are of x alone',
} as const;
