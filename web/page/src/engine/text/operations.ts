/**
 * The text card's operations as the engine worker calls them, each with the package functions
 * the worker hands in (run.ts's TextKit), its runtime, the request and the job: one module, so
 * that the worker's own code that loads them stays a few bytes.
 */
import type { LayerNormRuntime } from 'layernorm-wasm';
import type { Job } from '../compute';
import type { EngineApi } from '../protocol';
import { checkText } from './lab';
import { explainText, inputNpy, runText, type TextKit } from './run';

type Op<K extends keyof EngineApi> = (
  kit: TextKit,
  rt: LayerNormRuntime,
  args: EngineApi[K]['args'],
  job: Job,
) => Promise<EngineApi[K]['result']>;

export const textRun: Op<'textRun'> = (_kit, _rt, args, job) => runText(args, job);
export const textStages: Op<'textStages'> = async (kit, rt, args) => explainText(kit, rt, args);
export const textLab: Op<'textLab'> = (kit, rt, args) => checkText(kit, rt, args);
export const textInput: Op<'textInput'> = async (_kit, _rt, args) => inputNpy(args);
