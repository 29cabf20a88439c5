/**
 * The operator console's static files (docs/gaps.md#console): GET /console is the page, GET
 * /console/{file} its scripts and styles and the published dist files of the libraries it uses
 * (maplibre-gl, h3-js), read from node_modules when first asked for, so there is no build step and
 * nothing to install beyond `npm ci`. No credential: the page signs a person in with POST
 * /v1/sessions (or POST /v1/invitations/accept) and calls only the public API, its supply map
 * over the platform's WebSocket with a ticket minted from the session. Not part of the API, so not in the OpenAPI document.
 * Only the files named here are served (a name is never turned into a path).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ApiError, route, type RouteDef } from '../kernel/index.ts';

export const CONSOLE_PATH = '/console';

const root = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));
const page = (name: string) => root(`../console/${name}`);
const maplibre = (name: string) => root(`../node_modules/maplibre-gl/dist/${name}`);

const JS = 'text/javascript; charset=utf-8';
const FILES: Readonly<Record<string, { file: string; type: string }>> = {
  'index.html': { file: page('index.html'), type: 'text/html; charset=utf-8' },
  'console.js': { file: page('console.js'), type: JS },
  'api.js': { file: page('api.js'), type: JS },
  'supply-map.js': { file: page('supply-map.js'), type: JS },
  'queues.js': { file: page('queues.js'), type: JS },
  'deliveries.js': { file: page('deliveries.js'), type: JS },
  'people.js': { file: page('people.js'), type: JS },
  'console.css': { file: page('console.css'), type: 'text/css; charset=utf-8' },
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
