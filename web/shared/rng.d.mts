export function rng(seed: number): () => number;
