/**
 * The Hugging Face Hub as the text card reads it, on 127.0.0.1: a tiny GPT-2 (tests/data/onnx's
 * 8-bit export, d = 16, a vocabulary of 64, a context of 32) and a byte-level BPE tokenizer.json at
 * the Hub's layout (/{repo}/resolve/main/…). The model's URL answers with a redirect to a CDN
 * path, as the Hub does for large files; /slow/<path> trickles the file at <path>, /cut/<path> closes
 * the connection halfway unless asked for a range; anything else is a 404. Every
 * request is recorded, so a test can tell that a second visit downloaded nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext } from '@playwright/test';

export const REPO = '/onnx-community/gpt2-ONNX/resolve/main';
export const MODEL_PATH = `${REPO}/onnx/model_quantized.onnx`;
export const TOKENIZER_PATH = `${REPO}/tokenizer.json`;
export const DATA = join(import.meta.dirname, '..', '..', 'data', 'onnx');
export const TINY_GPT2 = new Uint8Array(readFileSync(join(DATA, 'gpt2-q8-opset14.onnx')));

/**
 * A tokenizer.json of GPT-2's form for the tiny model: single characters (a space is "Ġ"), then
 * merges, every id below 64 except "z" (100: in the tokenizer, outside the model's vocabulary).
 */
export function tinyTokenizer(): string {
  const singles = ['Ġ', ...'abcdefghijklmnopqrstuvwxy', 'T', '.', ','];
  const merges = ['Ġ t', 'h e', 'Ġt he', 'a t', 'Ġ c', 'Ġc at', 'Ġ s', 'Ġs at', 'Ġ o', 'Ġo n', 'Ġ m', 'Ġm at'];
  const vocab: Record<string, number> = {};
  for (const t of [...singles, ...merges.map((m) => m.replace(' ', ''))]) vocab[t] = Object.keys(vocab).length;
  vocab.z = 100;
  return JSON.stringify({ version: '1.0', model: { type: 'BPE', vocab, merges } });
}
/** "The cat sat on the mat." as that tokenizer splits it, with the ids its vocabulary gives. */
export const SENTENCE = 'The cat sat on the mat.';
export const SENTENCE_TOKENS = ['T', 'he', ' cat', ' sat', ' on', ' the', ' mat', '.'];
export const SENTENCE_IDS = [26, 30, 34, 36, 38, 31, 40, 27];

export interface Hub {
  origin: string;
  /** Requests so far: method and path. */
  log: { method: string; path: string; range: string | null }[];
  files: Map<string, Uint8Array | string>;
  /** Slow downloads the client went away from before their end. */
  cut: string[];
  close(): Promise<void>;
}

export async function startHub(): Promise<Hub> {
  const files = new Map<string, Uint8Array | string>([
    [`/cdn${MODEL_PATH}`, TINY_GPT2],
    [TOKENIZER_PATH, tinyTokenizer()],
  ]);
  const log: Hub['log'] = [];
  const cut: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    log.push({ method: req.method ?? 'GET', path, range: req.headers.range ?? null });
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', 'Content-Length, Content-Range');
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Headers', '*');
      return void res.writeHead(204).end();
    }
    // /slow/<path>: the file at <path>, trickled; /cut/<path>: the connection closes halfway, unless asked for a range.
    const slow = path.startsWith('/slow/');
    const cutShort = path.startsWith('/cut/');
    const rest = slow || cutShort ? path.slice(path.indexOf('/', 1)) : path;
    // The Hub answers a large file's URL with a redirect to its CDN.
    if (rest === path && files.has(`/cdn${rest}`)) return void res.writeHead(302, { Location: `/cdn${rest}` }).end();
    const body = files.get(rest) ?? files.get(`/cdn${rest}`);
    if (body === undefined) return void res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Entry not found');
    const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
    const headers = { 'Content-Type': 'application/octet-stream', 'Content-Length': String(bytes.length) };
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (range && !slow) {
      const start = Number(range[1]);
      const end = Math.min(range[2] ? Number(range[2]) : bytes.length - 1, bytes.length - 1);
      res.writeHead(206, {
        ...headers,
        'Content-Length': String(end - start + 1),
        'Content-Range': `bytes ${start}-${end}/${bytes.length}`,
      });
      return void res.end(req.method === 'HEAD' ? undefined : bytes.subarray(start, end + 1));
    }
    res.writeHead(200, headers);
    if (req.method === 'HEAD') return void res.end();
    // Half the body, then (once the client has had time to read it) the connection drops.
    if (cutShort)
      return void res.write(bytes.subarray(0, bytes.length >> 1), () => setTimeout(() => res.destroy(), 1000));
    if (!slow) return void res.end(bytes);
    // 1 KB every 100 ms: a download long enough to watch and to cancel.
    let at = 0;
    const timer = setInterval(() => {
      if (res.destroyed || at >= bytes.length) {
        clearInterval(timer);
        if (!res.destroyed) res.end();
        return;
      }
      res.write(bytes.subarray(at, (at += 1024)));
    }, 100);
    res.on('close', () => {
      clearInterval(timer);
      if (at < bytes.length) cut.push(path);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    files,
    cut,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Requests for huggingface.co go to the local Hub, redirects included (the browser follows them there). */
export async function routeHub(context: BrowserContext, hub: Hub): Promise<void> {
  await context.route(/^https:\/\/huggingface\.co\/onnx-community\//, async (route) => {
    try {
      const url = new URL(route.request().url());
      const response = await route.fetch({ url: `${hub.origin}${url.pathname}`, maxRedirects: 0 });
      const headers = response.headers();
      if (headers.location) headers.location = new URL(headers.location, hub.origin).href;
      await route.fulfill({ response, headers });
    } catch {
      await route.abort().catch(() => undefined);
    }
  });
}
