// A Svelte 5 app (svelte-app.svelte) showing <layernorm-explainer>: it walks the rows through the
// app's state, hears the reader's pick, passes γ of the wrong length (a plain array of 10 values)
// and then the good weights again, and reports the output stage of each row as
// app/explainer-entry.js does, with what the app saw.
import { mount } from 'svelte';
import App from './svelte-app.svelte';
import { drive } from './framework-driver.js';

const app = mount(App, { target: document.body });
const bad = { ...app.GOOD, gamma: app.GOOD.gamma.slice(0, 10) };

drive({ ...app, bad, refusal: 'weights.beta must have length d = 10' }).then((result) => {
  window.lnwResult = result;
});
