/**
 * Reading a file: URL where there is no file system (browsers, workers). Chosen through the
 * package's "#file-reader" import for every condition but "node"; file-reader.node.ts is the real one.
 */
export async function readFileBytes(url: URL): Promise<Uint8Array> {
  throw new Error(`${url.href}: file: URLs can only be read in Node, Deno or Bun`);
}
