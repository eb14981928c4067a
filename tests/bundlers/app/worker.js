// A module Worker that imports the package by name and answers each message with a check.
import { check } from './check.js';
import { initOptions } from './init-options.js';

self.onmessage = async (event) => {
  self.postMessage(await check({ ...initOptions, ...event.data }));
};
