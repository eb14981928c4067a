/**
 * The check card's requests: the scalar check (kept up to date once asked for) and the
 * correctness lab (the visitor's expected outputs compared with the exact answer and this
 * library's), run again for every new output and tolerance, and the page of rows it shows.
 */
import { Cancelled } from '../engine/client';
import { idle, type PageStore } from '../state';
import { errorText } from '../ui/format';
import { job, layerParams, type Requests } from './requests';

/** How long the tolerance must stay put before the lab runs again (ms): typed key by key, it runs once. */
const TOLERANCE_SETTLE_MS = 150;
/** Rows the lab's table shows at a time. */
const LAB_ROWS = 50;

export function startChecks(store: PageStore, requests: Requests): void {
  const scalar = () => runScalar(store, requests);
  const lab = () => runLab(store, requests);

  store.handle('check/scalar', () => void scalar());
  store.handle('lab/add', async ({ files }) => {
    const added = [];
    const errors: string[] = [];
    for (const file of files) {
      try {
        added.push(await requests.engine.call('addExpected', { file }));
      } catch (e) {
        errors.push(errorText(e));
      }
    }
    store.set({
      expected: [...store.state.expected, ...added],
      expectedMessage: errors.length ? { kind: 'error', text: errors.join(' ') } : null,
    });
    if (added.length) void lab();
  });
  store.handle('lab/remove', async ({ id }) => {
    await requests.engine.call('removeExpected', { id });
    store.set({ expected: store.state.expected.filter((f) => f.id !== id) });
    void lab();
  });

  store.watch(
    ['labView'],
    async (s) => {
      const v = s.labView;
      if (!v) return store.set({ labRows: null });
      try {
        store.set({ labRows: await requests.run('labRows', 'labRows', { ...v, limit: LAB_ROWS }) });
      } catch (e) {
        if (!(e instanceof Cancelled)) store.set({ labRows: null });
      }
    },
    { immediate: false },
  );
  // A new output: the checks that ran on the old one run again.
  store.watch(
    ['result'],
    (s) => {
      if (!s.result) return;
      if (s.scalar.status !== 'idle') void scalar();
      if (s.expected.length) void lab();
    },
    { immediate: false },
  );
  let settle: ReturnType<typeof setTimeout> | undefined;
  store.watch(
    ['tolerance'],
    () => {
      clearTimeout(settle);
      settle = setTimeout(() => void lab(), TOLERANCE_SETTLE_MS);
    },
    { immediate: false },
  );
}

/** The scalar check of the current output: the module against the reference, value by value. */
async function runScalar(store: PageStore, requests: Requests): Promise<void> {
  const p = layerParams(store.state);
  if (!p || !store.state.result) return;
  store.set({ scalar: job('running', store.state.scalar.result) });
  try {
    const r = await requests.run('scalar', 'scalar', p, (done, total) =>
      store.set({ scalar: job('running', store.state.scalar.result, '', done, total) }),
    );
    store.set({ scalar: job('done', r) });
  } catch (e) {
    if (!(e instanceof Cancelled)) store.set({ scalar: job<never>('failed', null, errorText(e)) });
  }
}

/** The lab: the visitor's expected outputs against the exact answer, with the current tolerance. */
async function runLab(store: PageStore, requests: Requests): Promise<void> {
  const s = store.state;
  const p = layerParams(s);
  if (!p || !s.result || !s.expected.length) {
    if (!s.expected.length) store.set({ lab: idle(), labRows: null, labView: null });
    return;
  }
  store.set({ lab: job('running', s.lab.result) });
  try {
    const r = await requests.run('lab', 'lab', { ...p, tolerance: s.tolerance }, (done, total) =>
      store.set({ lab: job('running', store.state.lab.result, '', done, total) }),
    );
    const view = store.state.labView;
    const keep = view && r.files.some((f) => f.id === view.fileId && !f.shapeError);
    const first = r.files.find((f) => !f.shapeError);
    store.set({
      lab: job('done', r),
      labView: keep ? { ...view } : first ? { fileId: first.id, sort: 'abs', failingOnly: false, offset: 0 } : null,
    });
  } catch (e) {
    if (!(e instanceof Cancelled)) store.set({ lab: job<never>('failed', null, errorText(e)) });
  }
}
