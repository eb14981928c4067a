// A Vue 3 app (vue-app.vue) showing <layernorm-explainer>: it walks the rows through the app's
// state, hears the reader's pick, passes γ as a string and then the good weights again, and
// reports the output stage of each row as app/explainer-entry.js does, with what the app saw.
import { createApp } from 'vue';
import App from './vue-app.vue';
import { drive } from './framework-driver.js';

const root = document.createElement('div');
document.body.append(root);
const app = createApp(App).mount(root);

drive({ ...app, bad: { ...app.GOOD, gamma: 'not numbers' }, refusal: 'weights.gamma' }).then((result) => {
  window.lnwResult = result;
});
