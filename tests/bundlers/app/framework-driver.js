// What the React, Vue and Svelte apps do with their <layernorm-explainer>, through what each app exposes:
// setRow and setWeights (its state), GOOD (its weights), seen ({ picks, errors }: what its
// listeners heard). It walks the rows, has the reader pick a token, passes `bad` (whose refusal
// must name `refusal`) and then GOOD again, and reports the output stage of each row as
// app/explainer-entry.js does, with what the app saw.
import { ROWS } from './inputs.js';

const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));

// A framework applies state in its own time (React 18 runs effects after paint, in a scheduler
// task that can come after the next frame), so the driver waits for what it asked for to reach
// the element, a bounded number of frames, and then reads the element's answer.
async function until(done, what, frames = 120) {
  for (let i = 0; i < frames; i++) {
    if (done()) return;
    await frame();
  }
  throw new Error(`${typeof what === 'function' ? what() : what} did not happen within ${frames} frames`);
}

export async function drive({ setRow, setWeights, GOOD, seen, bad, refusal }) {
  try {
    await frame();
    const el = document.querySelector('layernorm-explainer');
    const status = () => el.shadowRoot.querySelector('#ex-status')?.textContent;
    const y = [];
    for (let row = 0; row < ROWS; row++) {
      setRow(row);
      await until(() => el.row === row, `row ${row} reaching the element`);
      await el.ready;
      await until(
        () => el.stages,
        () => `stages for row ${row} (status: ${status()})`,
      );
      y.push(...el.stages.output);
    }
    // The reader picks a token: the app hears it and sets the row back.
    el.shadowRoot.querySelector('[role="option"][data-row="1"]').click();
    await until(() => document.getElementById('app-row')?.textContent === 'row 1', 'rowchange reaching the app');
    // A bad property: the app stays, the element says why, then draws again with the good one.
    setWeights(bad);
    await until(() => seen.errors.length > 0, 'a refusal of the bad property');
    await el.ready;
    if (!document.getElementById('app-row')) throw new Error('the app is gone after a bad property');
    const said = seen.errors[0] ?? '';
    if (el.stages || !said.includes(refusal) || status() !== said) throw new Error(`not refused: ${seen.errors}`);
    setWeights(GOOD);
    await until(() => el.stages, 'the good weights being drawn again');
    await el.ready;
    if (!el.stages) throw new Error('the good weights were not drawn again');
    return { y, heading: `${el.shadowRoot.querySelector('h2')?.textContent} (picked ${seen.picks}; refused once)` };
  } catch (e) {
    return { error: `${e?.name}: ${e?.message}` };
  }
}
