import type { LayerNormRuntime } from '../../dist/index.js';

export function freshRuntime(backend?: 'simd' | 'scalar'): Promise<LayerNormRuntime>;
export function memoryBytes(rt: LayerNormRuntime): number;
export function fillMemory(rt: LayerNormRuntime): void;
export function grewDuring(rt: LayerNormRuntime, call: () => unknown): boolean;
export interface GrowOnAllocate {
  readonly growths: number;
  during<T>(call: () => T): T;
  restore(): void;
}
export function growOnAllocate(rt: LayerNormRuntime): GrowOnAllocate;
