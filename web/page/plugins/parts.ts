/**
 * The page's markup, one file per card: `<!-- part: name -->` in index.html becomes the contents
 * of parts/name.html, at build time and in the dev server (which reloads when a part changes);
 * `<!-- norm-forms -->` in a part becomes the radios of the norm table's forms (norm-forms.ts).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { normFormRadios } from './norm-forms.ts';

const PARTS = join(dirname(fileURLToPath(import.meta.url)), '..', 'parts');

export function includeParts(
  html: string,
  read = (name: string) => readFileSync(join(PARTS, `${name}.html`), 'utf8'),
): string {
  return html
    .replace(/<!-- part: ([\w-]+) -->/g, (_, name: string) => read(name).trimEnd())
    .replace('<!-- norm-forms -->', () => normFormRadios());
}

export function parts(): Plugin {
  return {
    name: 'page-parts',
    transformIndexHtml: { order: 'pre', handler: (html) => includeParts(html) },
    configureServer(server) {
      server.watcher.add(PARTS);
      server.watcher.on('change', (file) => {
        if (file.startsWith(PARTS)) server.ws.send({ type: 'full-reload' });
      });
    },
  };
}
