export const MADE_UP: 'centredl2';
export const MADE_UP_FACTS: { centred: true; divisor: 'one'; bias: true };
