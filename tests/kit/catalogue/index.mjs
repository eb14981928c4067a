// The error catalogue as data: every case of web/docs/errors.md's rows that a call can show, one
// row of data each (tests/kit/catalogue/*.mjs, by area), run by one small driver per environment
// (tests/errors/main-thread.test.ts, tests/errors/worker.test.ts) and held to the catalogue by
// tests/errors/catalogue.test.ts. Nothing here imports the package: a driver hands each case the
// runtime and modules it tests, in the context described in index.d.mts.
import { FILE_CASES } from './files.mjs';
import { IO_ARGUMENT_CASES } from './io-arguments.mjs';
import { NORM_CASES } from './norms.mjs';
import { NUMERIC_CASES } from './numeric.mjs';
import { WORKER_CASES } from './worker.mjs';

export { errorsRow, errorsRows, namesABrowser, quotes, rule } from './rows.mjs';
export { andThen } from './values.mjs';

const AREAS = {
  numeric: NUMERIC_CASES,
  norms: NORM_CASES,
  'io-arguments': IO_ARGUMENT_CASES,
  files: FILE_CASES,
  worker: WORKER_CASES,
};

/** Every case, as { area, row, name, call, error, message, on, async, needs }, in the tables' order. */
export const CASES = Object.entries(AREAS).flatMap(([area, cases]) =>
  cases.map(([row, name, call, error, message, flags = {}]) => ({
    area,
    row,
    name,
    call,
    error,
    message,
    on: flags.on ?? 'both',
    async: flags.async ?? false,
    needs: flags.needs ?? null,
  })),
);

/** The cases that run in `where`: the main thread or a worker. */
export const casesFor = (where) => CASES.filter((c) => c.on === where || c.on === 'both');
