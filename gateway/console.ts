/**
 * The operator console's static files (docs/gaps.md#console): GET /console is the page, GET
 * /console/{file} its scripts and styles and the published dist files of the libraries it uses
 * (maplibre-gl, h3-js), read from node_modules when first asked for, so there is no build step and
 * nothing to install beyond `npm ci`. No credential: the page signs a person in with POST
 * /v1/sessions (or POST /v1/invitations/accept) and calls only the public API, its supply map
 * over the platform's WebSocket with a ticket minted from the session. Not part of the API, so not in the OpenAPI document.
 * Only the files listed here are served (a name is never turned into a path): the page's own, as
 * the console/ folder lists them when this module loads (a view is a file of its own, added
 * without a line here), and the libraries' files named below.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ApiError, route, type RouteDef } from '../kernel/index.ts';

export const CONSOLE_PATH = '/console';

const root = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));
const page = (name: string) => root(`../console/${name}`);
const maplibre = (name: string) => root(`../node_modules/maplibre-gl/dist/${name}`);

const JS = 'text/javascript; charset=utf-8';
const TYPES: Readonly<Record<string, string>> = { '.html': 'text/html; charset=utf-8', '.js': JS, '.css': 'text/css; charset=utf-8' };

/** The page's files: each of console/'s files of a type the page serves, by its name. */
function pageFiles(): Record<string, { file: string; type: string }> {
  const out: Record<string, { file: string; type: string }> = {};
  for (const name of readdirSync(root('../console/'))) {
    const type = TYPES[name.slice(name.lastIndexOf('.'))];
    if (type && /^[a-z0-9-]+\.[a-z]+$/.test(name)) out[name] = { file: page(name), type };
  }
  return out;
}

const FILES: Readonly<Record<string, { file: string; type: string }>> = {
  ...pageFiles(),
  'maplibre-gl.mjs': { file: maplibre('maplibre-gl.mjs'), type: JS },
  'maplibre-gl-worker.mjs': { file: maplibre('maplibre-gl-worker.mjs'), type: JS },
  'maplibre-gl-shared.mjs': { file: maplibre('maplibre-gl-shared.mjs'), type: JS },
  'maplibre-gl.css': { file: maplibre('maplibre-gl.css'), type: 'text/css; charset=utf-8' },
  'h3-js.es.js': { file: root('../node_modules/h3-js/dist/browser/h3-js.es.js'), type: JS },
};

const cache = new Map<string, Uint8Array>();

function serveFile(name: string) {
  const f = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
  if (!f) throw new ApiError('not_found', `No console file ${name}.`);
  let bytes = cache.get(name);
  if (!bytes) cache.set(name, (bytes = readFileSync(f.file)));
  return { raw: { contentType: f.type, bytes }, headers: { 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' } };
}

export function consoleRoutes(): RouteDef[] {
  const common = { method: 'GET' as const, auth: 'none' as const, module: null, idempotent: false };
  return [
    route({ ...common, path: CONSOLE_PATH, summary: 'The operator console page.', handler: async () => serveFile('index.html') }),
    route({ ...common, path: `${CONSOLE_PATH}/{file}`, summary: 'A file of the operator console.', handler: async (req) => serveFile(req.params.file) }),
  ];
}
