/**
 * What "#worker-threads" gives where Node's worker_threads does not exist (every condition but
 * "node"): nothing. Browsers use the web Worker API instead; threads.node.ts is the real one.
 */
export const Worker = undefined;
export const parentPort = null;
