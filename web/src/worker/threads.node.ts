/**
 * node:worker_threads, reached only through the package's "#worker-threads" import under the
 * "node" condition, so browser bundles never see it.
 */
export { Worker, parentPort } from 'node:worker_threads';
