/**
 * Inputs written in HTML alone, loaded only when a page uses them: the `activations-src` URL (a
 * .npy, or JSON with the tokens inside), `tokens-src` (a JSON array of strings), and an inline
 * `<script type="application/json">` child holding `{ weights?, activations, tokens? }`. What they
 * give goes through the same checks as the properties; what goes wrong is said in words an author
 * can act on (an HTML page where a file was expected is a wrong URL, most of the time).
 */
import type { ExplainerActivations, ExplainerWeights } from './types.js';
import { errorText } from '../checks/error-text.js';

const NPY_MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

/** What an inline script or a JSON file may hold. */
export interface MarkupInputs {
  weights?: ExplainerWeights | null;
  activations: ExplainerActivations;
}

function isHtml(bytes: Uint8Array, contentType: string | null): boolean {
  if (contentType?.includes('text/html')) return true;
  const head = new TextDecoder().decode(bytes.subarray(0, 64)).trimStart().toLowerCase();
  return head.startsWith('<!doctype html') || head.startsWith('<html');
}

/** The sentence for a URL answered with an HTML page (a host's index.html for a path it lacks). */
function htmlAnswer(url: string): string {
  return `the server sent an HTML page for ${url}, not the file: is the URL right? (Many hosts answer a path they do not have with their index.html.)`;
}

async function fetchBytes(url: string, signal: AbortSignal): Promise<Uint8Array> {
  const response = await fetch(url, { signal });
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
  if (isHtml(bytes, response.headers.get('content-type'))) throw new Error(htmlAnswer(url));
  return bytes;
}

/** Whether `url` answers with an HTML page (asked after a checkpoint failed to load, to say why). */
async function answersHtml(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { headers: { Range: 'bytes=0-63' } });
    const bytes = new Uint8Array(await response.arrayBuffer());
    return isHtml(bytes, response.headers.get('content-type'));
  } catch {
    return false;
  }
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${where} is not JSON: ${errorText(e)}`);
  }
}

/**
 * Activations from parsed JSON: `{ data, shape, tokens? }` (data flat, row after row), rows of
 * numbers (`[[…], […]]`), or `{ activations: either of those, tokens?, weights? }`.
 */
function fromJson(value: unknown, where: string): MarkupInputs {
  const o = (value ?? {}) as Record<string, unknown>;
  const inner = Array.isArray(value) ? value : (o.activations ?? o);
  const tokens = (o.tokens ?? (inner as Record<string, unknown>).tokens) as string[] | undefined;
  let activations: ExplainerActivations;
  if (Array.isArray(inner)) {
    const rows = inner as unknown[];
    if (!rows.every((r) => Array.isArray(r) && r.length === (rows[0] as unknown[]).length)) {
      throw new Error(`${where}: the activations must be rows of numbers of one length, [[…], […]]`);
    }
    const d = (rows[0] as unknown[] | undefined)?.length ?? 0;
    activations = { data: (rows as number[][]).flat() as unknown as Float32Array, shape: [rows.length, d], tokens };
  } else {
    const a = inner as Record<string, unknown>;
    if (!('data' in a) || !('shape' in a)) {
      throw new Error(
        `${where} must hold { "activations": [[…], […]], "tokens": […] } or { "data": […], "shape": [rows, d] }`,
      );
    }
    activations = { ...(a as unknown as ExplainerActivations), tokens };
  }
  return { activations, weights: o.weights as ExplainerWeights | undefined };
}

/** The inline `<script type="application/json">` child's inputs. */
function fromScript(text: string): MarkupInputs {
  const where = 'The <script type="application/json"> inside <layernorm-explainer>';
  return fromJson(parseJson(text, where), where);
}

/** `activations-src` (and `tokens-src`): a .npy or a JSON file, read whole. */
async function fromUrls(src: string, tokensSrc: string | null, signal: AbortSignal): Promise<MarkupInputs> {
  const url = new URL(src, document.baseURI).href;
  const bytes = await fetchBytes(url, signal);
  let inputs: MarkupInputs;
  if (NPY_MAGIC.every((b, i) => bytes[i] === b)) {
    const { readNpy } = await import('../io/npy.js');
    const { data, shape } = readNpy(bytes, url);
    inputs = { activations: { data, shape } };
  } else {
    inputs = fromJson(parseJson(new TextDecoder().decode(bytes), url), url);
  }
  if (tokensSrc) {
    const tokensUrl = new URL(tokensSrc, document.baseURI).href;
    const tokens = parseJson(new TextDecoder().decode(await fetchBytes(tokensUrl, signal)), tokensUrl);
    inputs.activations = { ...inputs.activations, tokens: tokens as string[] };
  }
  return inputs;
}

/**
 * Reads the inputs written on `el` (`activations-src` with `tokens-src`, else its inline JSON
 * child) and sets its `weights` and `activations`, unless `signal` is aborted first. A failure
 * resolves to an Error with the sentence to show (the error itself as its `cause`).
 */
export async function loadInto(
  el: HTMLElement & { weights: ExplainerWeights | null; activations: ExplainerActivations | null },
  signal: AbortSignal,
): Promise<Error | null> {
  const src = el.getAttribute('activations-src');
  try {
    const inputs = src
      ? await fromUrls(src, el.getAttribute('tokens-src'), signal)
      : fromScript(el.querySelector(':scope > script[type="application/json"]')?.textContent ?? '');
    if (signal.aborted) return null;
    if (inputs.weights) el.weights = inputs.weights;
    el.activations = inputs.activations;
    return null;
  } catch (e) {
    const what = src ? `the activations from ${src}` : 'the inline <script type="application/json">';
    return new Error(`Could not read ${what}: ${errorText(e)}`, { cause: e });
  }
}

/**
 * Why a checkpoint did not load, in words: a format error on an HTML page (a host answering a
 * mistyped path with its index.html) is said to be that, not a header length read from markup.
 */
export async function loadFailure(src: string, error: unknown): Promise<string> {
  const message = errorText(error);
  if (!(error instanceof Error && error.name === 'FormatError')) return message;
  const url = new URL(src, document.baseURI).href;
  return (await answersHtml(url)) ? htmlAnswer(url) : message;
}
