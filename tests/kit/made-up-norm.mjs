// A norm the package does not have, added to its table (dist/norms.js) from its facts alone: a
// centred norm whose moment is the sum of squared deviations (divisor 1) and which adds a bias,
// y = γ ⊙ (x − μ) / √(Σ(x − μ)² + ε) + β. Import this module before anything else of the package
// (dist/index.js, dist/worker/index.js, a worker's script): the runtime and the worker install a
// norm's methods from the table when they load. tests/core/norm-facts.test.ts runs it through
// every entry point, and tests/worker/fixtures/made-up-norm-worker.mjs is a worker that has it.
import { NORM_FORM_NAMES, NORM_FORMS, NORM_KINDS, NORMS } from '../../dist/norms.js';

export const MADE_UP = 'centredl2';
export const MADE_UP_FACTS = { centred: true, divisor: 'one', bias: true };

if (!Object.hasOwn(NORMS, MADE_UP)) {
  NORMS[MADE_UP] = {
    name: 'centred L2Norm',
    equation: 'y = γ ⊙ (x − μ) / √(Σ(x − μ)² + ε) + β',
    ...MADE_UP_FACTS,
    moment: 'Σ(x − μ)²',
    momentName: 'sum of squared deviations',
    statistics: ['μ = Σᵢ xᵢ / d', 'Σ(x − μ)² = Σᵢ (xᵢ − μ)²'],
    api: {
      call: 'centredL2Norm',
      create: 'createCentredL2Norm',
      stages: 'centredL2NormStages',
      reference: 'centredL2NormReference',
    },
  };
  NORM_KINDS.push(MADE_UP);
  NORM_FORMS[MADE_UP] = {
    norm: MADE_UP,
    bias: true,
    label: 'centred L2Norm (γ and β)',
    short: 'centred L2',
    equation: NORMS[MADE_UP].equation,
    url: 'cl2',
    bench: 'cl2',
  };
  NORM_FORM_NAMES.push(MADE_UP);
}
