/**
 * OpenAPI 3.1 from the route declarations (DESIGN "Gateway": the document cannot drift from the
 * code). TypeBox schemas are JSON Schema 2020-12, which OpenAPI 3.1 uses as is. Gaps the project
 * filled carry `x-spec-gap: true` and `x-spec-gap-reason`. Output is deterministic (sorted paths,
 * fixed key order) so a test can compare it with the committed docs/openapi.json.
 */
import type { TSchema } from '@sinclair/typebox';
import { type Area, CATALOGUE, type ErrorCode, requiredScope, type RouteDef, type SocketDef } from '../../kernel/index.ts';

export const OPENAPI_PATH = '/v1/openapi.json';

type Json = Record<string, unknown>;

/** A plain JSON copy (drops TypeBox's symbol keys and undefined). */
const plain = (s: TSchema): Json => JSON.parse(JSON.stringify(s)) as Json;

const ErrorSchema: Json = {
  type: 'object',
  'x-spec-gap': true,
  description: 'Spec 7: error response body shape not shown. One shape for every error.',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'request_id', 'retryable'],
      properties: {
        code: { type: 'string', enum: Object.keys(CATALOGUE), description: 'Branch on this.' },
        message: { type: 'string', description: 'Plain words; may change.' },
        request_id: { type: 'string', pattern: '^req_', description: 'The Service-Request-Id of the request that produced this answer.' },
        retryable: { type: 'boolean', description: 'True when nothing was applied and the same request may be retried.' },
        validation: { $ref: '#/components/schemas/ValidationReport' },
      },
    },
  },
};

const ValidationReport: Json = {
  type: 'object',
  description: 'Spec 2.1. Names every failing entry. `field` (a JSON pointer) is added by this implementation.',
  required: ['entry_count', 'error_count', 'warning_count'],
  properties: {
    entry_count: { type: 'integer', minimum: 0 },
    error_count: { type: 'integer', minimum: 0 },
    warning_count: { type: 'integer', minimum: 0 },
    entries: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'severity', 'code', 'detail'],
        properties: {
          index: { type: 'integer', minimum: 1 },
          severity: { type: 'string', enum: ['error', 'warning'] },
          code: { type: 'string' },
          detail: { type: 'string' },
          field: { type: 'string', 'x-spec-gap': true },
        },
      },
    },
  },
};

const errorRef = (description: string) => ({
  description,
  headers: { 'Service-Request-Id': { $ref: '#/components/headers/ServiceRequestId' } },
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/**
 * The responses of the codes a route declares in `errors` (kernel/area.ts), one per catalogue
 * status (spec 7) not already derived from the route's shape; the description names each code.
 */
function declaredErrors(r: RouteDef, derived: Json): Json {
  const byStatus = new Map<string, ErrorCode[]>();
  for (const code of r.errors ?? []) {
    const status = String(CATALOGUE[code].status);
    if (status in derived) continue;
    const codes = byStatus.get(status) ?? [];
    if (!codes.includes(code)) codes.push(code);
    byStatus.set(status, codes);
  }
  const out: Json = {};
  for (const [status, codes] of byStatus) out[status] = errorRef(codes.map((c) => `${c}: ${CATALOGUE[c].doc}`).join(' '));
  return out;
}

function operationId(r: RouteDef): string {
  const parts = r.path
    .replace(/^\/v1\//, '')
    .split('/')
    .map((p) => (p.startsWith('{') ? 'by_' + p.slice(1, -1) : p));
  return [r.method.toLowerCase(), ...parts].join('_').replace(/[^A-Za-z0-9_]/g, '_');
}

function security(r: RouteDef): Json[] {
  switch (r.auth) {
    case 'none':
      return [];
    case 'session':
      return [{ Session: [] }];
    case 'key': {
      const scope = requiredScope(r);
      const s = scope ? [scope] : [];
      return [{ ApiKey: s }, { Bearer: s }];
    }
  }
}

function operation(r: RouteDef, area: string): Json {
  const params: Json[] = [];
  for (const m of r.path.matchAll(/\{([^}]+)\}/g)) params.push({ name: m[1], in: 'path', required: true, schema: { type: 'string' } });
  if (r.query) {
    const q = plain(r.query);
    const props = (q.properties ?? {}) as Record<string, Json>;
    const required = new Set((q.required as string[] | undefined) ?? []);
    for (const name of Object.keys(props)) params.push({ name, in: 'query', required: required.has(name), schema: props[name] });
  }
  if (r.method === 'POST' && r.auth !== 'none') {
    params.push({ $ref: r.idempotent ? '#/components/parameters/IdempotencyKeyRequired' : '#/components/parameters/IdempotencyKeyOptional' });
  }
  const status = String(r.status ?? 200);
  const ok: Json = {
    description: 'Success.',
    headers: {
      'Service-Request-Id': { $ref: '#/components/headers/ServiceRequestId' },
      ...(r.method === 'POST' && r.auth !== 'none' ? { 'Service-Idempotent-Replay': { $ref: '#/components/headers/ServiceIdempotentReplay' } } : {}),
    },
    content: { 'application/json': { schema: r.response ? plain(r.response) : {} } },
  };
  const responses: Json = { [status]: ok, '400': errorRef('Unreadable request or a refused value (validation names every field).') };
  if (r.auth !== 'none') {
    responses['401'] = errorRef('No valid credential.');
    responses['403'] = errorRef('forbidden (the message names the missing scope) or organisation_mismatch.');
  }
  if (r.path.includes('{')) responses['404'] = errorRef('No record with that identifier.');
  if (r.method !== 'GET') responses['409'] = errorRef('conflict: the record is not in a state that allows this.');
  // credentialed requests, and POSTs without a credential, draw on rate budgets (gateway/rate-limits.ts)
  if (r.auth !== 'none' || r.method === 'POST') responses['429'] = errorRef('rate_limited: over a budget of the credential, the organisation or the address; Retry-After says when to send again.');
  Object.assign(responses, declaredErrors(r, responses));
  const op: Json = {
    operationId: operationId(r),
    tags: [area],
    summary: r.summary,
    security: security(r),
    ...(r.module !== null && r.auth === 'key' ? { 'x-scope': requiredScope(r) } : {}),
    ...(r.method === 'POST' ? { 'x-idempotency-key': r.idempotent ? 'required' : r.auth === 'none' ? 'ignored' : 'optional' } : {}),
    ...(params.length ? { parameters: params } : {}),
    ...(r.body ? { requestBody: { required: true, content: { 'application/json': { schema: plain(r.body) } } } } : {}),
    responses,
  };
  if (r.specGap) Object.assign(op, { 'x-spec-gap': true, 'x-spec-gap-reason': r.specGap });
  return op;
}

function socketPath(s: SocketDef, area: string): Record<string, Json> {
  return {
    get: {
      operationId: operationId({ method: 'GET', path: s.path } as RouteDef) + '_socket',
      tags: [area],
      summary: `${s.summary} (WebSocket upgrade; scope ${s.module}:write)`,
      security: [{ ApiKey: [`${s.module}:write`] }, { Bearer: [`${s.module}:write`] }],
      'x-websocket': true,
      ...(s.specGap ? { 'x-spec-gap': true, 'x-spec-gap-reason': s.specGap } : {}),
      responses: { '101': { description: 'Switching protocols.' }, '401': errorRef('No valid credential.'), '403': errorRef('Missing scope.') },
    },
  };
}

export function buildOpenApi(areas: readonly Area[], gatewayRoutes: readonly RouteDef[] = []): Json {
  const paths: Record<string, Record<string, Json>> = {};
  const add = (r: RouteDef, area: string) => {
    (paths[r.path] ??= {})[r.method.toLowerCase()] = operation(r, area);
  };
  for (const a of areas) for (const r of a.routes) add(r, a.name);
  for (const r of gatewayRoutes) add(r, 'gateway');
  for (const a of areas) for (const s of a.sockets ?? []) paths[s.path] = { ...(paths[s.path] ?? {}), ...socketPath(s, a.name) };
  const sorted: Json = {};
  for (const p of Object.keys(paths).sort()) {
    const ops: Json = {};
    for (const m of ['get', 'post', 'put', 'patch', 'delete']) if (paths[p][m]) ops[m] = paths[p][m];
    sorted[p] = ops;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Workforce, Payroll and Engagement Platform',
      version: '1.0.0',
      description:
        'Generated from the route declarations (npm run openapi). Operations and shapes that fill a gap of the specification carry x-spec-gap: true and the reason in x-spec-gap-reason.',
    },
    servers: [{ url: '{base_url}', variables: { base_url: { default: 'http://localhost:8080', description: 'Sandbox realm.' } } }],
    tags: [...areas.map((a) => ({ name: a.name })), { name: 'gateway' }],
    paths: sorted,
    components: {
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'Service-Api-Key', description: 'API key (spec 5.1); the same key may be sent as Authorization: Bearer.' },
        Bearer: { type: 'http', scheme: 'bearer', description: 'An API key or an access token from POST /v1/oauth/token (spec 5.1, 5.3).' },
        Session: { type: 'apiKey', in: 'header', name: 'Service-Session', description: 'Session token from registration or POST /v1/sessions (spec 5.4).' },
      },
      headers: {
        ServiceRequestId: { description: 'Identifier of this request (prefix req_); on every response.', schema: { type: 'string', pattern: '^req_' } },
        ServiceIdempotentReplay: { description: 'true when this response replays the first response to the same Idempotency-Key.', schema: { type: 'string', enum: ['true'] } },
      },
      parameters: {
        IdempotencyKeyRequired: { name: 'Idempotency-Key', in: 'header', required: true, schema: { type: 'string', minLength: 1, maxLength: 255 } },
        IdempotencyKeyOptional: { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 } },
      },
      schemas: { Error: ErrorSchema, ValidationReport },
    },
  };
}

export const renderOpenApi = (areas: readonly Area[], gatewayRoutes: readonly RouteDef[] = []): string => JSON.stringify(buildOpenApi(areas, gatewayRoutes), null, 2) + '\n';
