// Runs one README example in this Node process as a user's ES module would run: the offline
// fetch first, then the prelude, then the example itself, imported from its own file in a folder
// where `layernorm-wasm` is installed. Usage: node run-in-node.mjs <prelude arrays file> <example.mjs>
import './offline-fetch.mjs';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { installPrelude } from './prelude.mjs';

const [arraysFile, exampleFile] = process.argv.slice(2);
await installPrelude(readFileSync(arraysFile));
await import(pathToFileURL(exampleFile).href);
