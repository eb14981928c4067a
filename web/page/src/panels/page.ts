/** The cards above the explainer, which only the full page shows (an embed loads none of this). */
import type { PageStore } from '../state';
import { $ } from '../ui/dom';
import { mountActivations } from './activations';
import { mountOutput } from './output';
import { mountSpeed } from './speed';
import { mountStatus } from './status';
import { mountWeights } from './weights';

export function mountPage(store: PageStore): void {
  mountStatus(store);
  mountWeights(store, $('weights-card'));
  mountActivations(store);
  mountOutput(store);
  mountSpeed(store);
}
