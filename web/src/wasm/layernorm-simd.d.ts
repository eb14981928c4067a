import type { ModuleFactory } from './module.js';
declare const createLayerNormModule: ModuleFactory;
export default createLayerNormModule;
