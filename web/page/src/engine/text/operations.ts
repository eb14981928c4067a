/**
 * The text card's operations as the engine worker calls them, each with its runtime, the request
 * and the job: one module, so that the worker's own code that loads them stays a few bytes.
 */
import type { LayerNormRuntime } from 'layernorm-wasm';
import type { Job } from '../compute';
import type { EngineApi } from '../protocol';
import { checkText } from './lab';
import { explainText, inputNpy, runText } from './run';

type Op<K extends keyof EngineApi> = (
  rt: LayerNormRuntime,
  args: EngineApi[K]['args'],
  job: Job,
) => Promise<EngineApi[K]['result']>;

export const textRun: Op<'textRun'> = (_rt, args, job) => runText(args, job);
export const textStages: Op<'textStages'> = async (rt, args) => explainText(rt, args);
export const textLab: Op<'textLab'> = (rt, args) => checkText(rt, args);
export const textInput: Op<'textInput'> = async (_rt, args) => inputNpy(args);
