/**
 * A local HTTP server for tests that read files over the network. Files are virtual: a file can be
 * hundreds of megabytes of which only a few kilobytes are real, the rest generated as zeros on
 * demand, so a full-size checkpoint layout costs no memory or disk.
 *
 * The first path segment picks how the server behaves, so one server covers every case and the
 * browser tests can reuse it:
 *   /range/<file>         honours Range (206 + Content-Range), as the Hugging Face CDN does
 *   /ignore-range/<file>  answers 200 with the whole body whatever the Range header says
 *   /not-found/<file>     404
 *   /error/<file>         500
 *   /truncate/<file>      honours Range but closes the connection after half the body
 *   /slow/<file>          honours Range, waits before answering and trickles the body
 *   /wrong-range/<file>   206 whose Content-Range does not match the request
 *   /redirect/<file>      302 to /range/<file>
 *   /gzip/<file>          ignores Range and answers 200 with the whole body gzip-compressed
 *                         (Content-Encoding: gzip, Content-Length of the compressed bytes), as a
 *                         misconfigured server or CDN does; for small files only
 *   /no-cors/<file>       honours Range but sends no CORS headers: a browser refuses it to other origins
 *   /hidden-range/<file>  honours Range and allows any origin and the Range header, but exposes no
 *                         response header: a browser hides Content-Range from other origins
 */

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { bytesFile, type VirtualFile } from '../kit/checkpoints/bytes.mjs';

export type { VirtualFile };

export const SERVE_MODES = [
  'range',
  'ignore-range',
  'not-found',
  'error',
  'truncate',
  'slow',
  'wrong-range',
  'huge-size',
  'redirect',
  'gzip',
  'no-cors',
  'hidden-range',
] as const;
export type ServeMode = (typeof SERVE_MODES)[number];

export interface RequestRecord {
  method: string;
  mode: ServeMode;
  file: string;
  range: string | null;
  status: number;
  /** Body bytes handed to the socket. */
  bytesSent: number;
  /** The client went away before the body was complete. */
  closedEarly: boolean;
}

export interface FixtureServerOptions {
  files?: Record<string, VirtualFile | Uint8Array>;
  /** Delay before the answer and between chunks in 'slow' mode (default 50 ms). */
  slowDelayMs?: number;
  /** Chunk size in 'slow' mode (default 1024). */
  slowChunkBytes?: number;
}

export interface FixtureServer {
  /** e.g. http://127.0.0.1:40123 */
  readonly origin: string;
  url(file: string, mode?: ServeMode): string;
  addFile(name: string, file: VirtualFile | Uint8Array): void;
  readonly requests: readonly RequestRecord[];
  /** Body bytes sent, over all requests or those for one file. */
  bytesSent(file?: string): number;
  /** Resolves when every response so far has finished or been abandoned by its client. */
  idle(): Promise<void>;
  /** Forgets the request log. */
  reset(): void;
  close(): Promise<void>;
}

const CHUNK = 64 * 1024;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function parseRange(header: string, size: number): [number, number] | 'unsatisfiable' | null {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) return 'unsatisfiable';
    return [Math.max(0, size - n), size - 1];
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return [start, end];
}

export async function startFixtureServer(options: FixtureServerOptions = {}): Promise<FixtureServer> {
  const files = new Map<string, VirtualFile>();
  const add = (name: string, file: VirtualFile | Uint8Array) =>
    files.set(name, file instanceof Uint8Array ? bytesFile(file) : file);
  for (const [name, file] of Object.entries(options.files ?? {})) add(name, file);
  const slowDelay = options.slowDelayMs ?? 50;
  const slowChunk = options.slowChunkBytes ?? 1024;
  let requests: RequestRecord[] = [];
  const pending = new Set<Promise<void>>();

  const CORS: Record<string, Record<string, string>> = {
    'no-cors': {},
    'hidden-range': { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': 'Range' },
  };
  const FULL_CORS = {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Headers': 'Range',
    'Access-Control-Expose-Headers': 'Content-Range, Content-Length, Accept-Ranges',
  };

  async function send(
    res: http.ServerResponse,
    record: RequestRecord,
    file: VirtualFile,
    start: number,
    end: number,
    limit: number,
    slow: boolean,
  ) {
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    let pos = start;
    const stop = Math.min(end, start + limit);
    while (pos < stop && !closed && !res.destroyed) {
      const n = Math.min(slow ? slowChunk : CHUNK, stop - pos);
      const chunk = file.slice(pos, pos + n);
      let flushed: Promise<void> | undefined;
      // When the body will be cut short on purpose, let what was sent reach the client first.
      const ok = limit < Infinity ? res.write(chunk, () => undefined) : res.write(chunk);
      if (limit < Infinity) flushed = new Promise<void>((resolve) => res.write(new Uint8Array(0), () => resolve()));
      record.bytesSent += n;
      pos += n;
      if (flushed) await flushed;
      if (slow) await sleep(slowDelay);
      if (!ok && !closed) {
        // Back-pressure: wait until the socket drains or the client goes away, so a cancelled
        // download stops here instead of buffering the rest of a huge virtual body.
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
    }
    if (pos < end) {
      record.closedEarly = true;
      res.destroy();
    } else {
      await new Promise<void>((resolve) => res.end(resolve));
      record.closedEarly = closed && !res.writableFinished;
    }
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const [, modeName = '', ...rest] = url.pathname.split('/');
    const name = decodeURIComponent(rest.join('/'));
    const mode = modeName as ServeMode;
    const cors = CORS[mode] ?? FULL_CORS;
    const range = req.headers.range ?? null;
    const record: RequestRecord = {
      method: req.method ?? 'GET',
      mode,
      file: name,
      range,
      status: 0,
      bytesSent: 0,
      closedEarly: false,
    };
    requests.push(record);
    const reply = (status: number, headers: Record<string, string | number> = {}, body?: string) => {
      record.status = status;
      res.writeHead(status, { ...cors, ...headers });
      res.end(body);
    };

    if (req.method === 'OPTIONS') return reply(204, { 'Access-Control-Allow-Methods': 'GET, HEAD' });
    if (!SERVE_MODES.includes(mode)) return reply(400, { 'Content-Type': 'text/plain' }, `unknown mode "${modeName}"`);
    const file = files.get(name);
    if (mode === 'not-found' || !file) return reply(404, { 'Content-Type': 'text/plain' }, 'not found');
    if (mode === 'error') return reply(500, { 'Content-Type': 'text/plain' }, 'internal error');
    if (mode === 'redirect') return reply(302, { Location: `/range/${rest.join('/')}` });
    if (mode === 'slow') await sleep(slowDelay);
    if (mode === 'gzip') {
      const body = gzipSync(file.slice(0, file.size));
      record.status = 200;
      res.writeHead(200, {
        ...cors,
        'Content-Encoding': 'gzip',
        'Content-Length': body.length,
        'Content-Type': 'application/octet-stream',
      });
      record.bytesSent = body.length;
      return void res.end(req.method === 'HEAD' ? undefined : body);
    }

    const head = req.method === 'HEAD';
    const parsed = range && mode !== 'ignore-range' ? parseRange(range, file.size) : null;
    if (parsed === 'unsatisfiable') return reply(416, { 'Content-Range': `bytes */${file.size}` });
    if (!parsed) {
      record.status = 200;
      res.writeHead(200, {
        ...cors,
        'Content-Length': file.size,
        'Accept-Ranges': mode === 'ignore-range' ? 'none' : 'bytes',
        'Content-Type': 'application/octet-stream',
      });
      if (head) return void res.end();
      return send(res, record, file, 0, file.size, Infinity, mode === 'slow');
    }
    const [start, end] = parsed;
    const length = end - start + 1;
    // A plausible but wrong answer: the same length, one byte later.
    // huge-size: the right range of a file said to be past 2^53 bytes, which no double counts exactly.
    const claimed =
      mode === 'wrong-range'
        ? `bytes ${start + 1}-${end + 1}/${file.size}`
        : `bytes ${start}-${end}/${mode === 'huge-size' ? '99999999999999999999' : file.size}`;
    record.status = 206;
    res.writeHead(206, {
      ...cors,
      'Content-Range': claimed,
      'Content-Length': length,
      'Accept-Ranges': 'bytes',
      'Content-Type': 'application/octet-stream',
    });
    if (head) return void res.end();
    const limit = mode === 'truncate' ? Math.floor(length / 2) : Infinity;
    return send(res, record, file, start, end + 1, limit, mode === 'slow');
  }

  const server = http.createServer((req, res) => {
    const p: Promise<void> = handle(req, res)
      .catch(() => {
        res.destroy();
      })
      .finally(() => pending.delete(p));
    pending.add(p);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    origin,
    url: (file, mode = 'range') => `${origin}/${mode}/${file.split('/').map(encodeURIComponent).join('/')}`,
    addFile: add,
    get requests() {
      return requests;
    },
    bytesSent: (file) =>
      requests.filter((r) => file === undefined || r.file === file).reduce((a, r) => a + r.bytesSent, 0),
    async idle() {
      while (pending.size) await Promise.all([...pending]);
    },
    reset() {
      requests = [];
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
