/**
 * OpenAPI 3.1 generated from the route declarations (DESIGN gateway): the committed
 * docs/openapi.json must equal what `npm run openapi` writes now, and the server serves it.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { areas } from '../../actors/index.ts';
import { currentOpenApi, OPENAPI_FILE } from '../../scripts/write-docs.ts';
import { startHarness, type Harness } from '../../support/http.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

describe('OpenAPI document', () => {
  it('docs/openapi.json is not stale (run `npm run openapi` after changing a route)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(currentOpenApi());
  });

  it('is OpenAPI 3.1 and lists every declared route, with gaps marked x-spec-gap', () => {
    const doc = JSON.parse(currentOpenApi());
    expect(doc.openapi).toBe('3.1.0');
    for (const a of areas) {
      for (const r of a.routes) {
        const op = doc.paths[r.path]?.[r.method.toLowerCase()];
        expect(op, `${r.method} ${r.path}`).toBeDefined();
        if (r.specGap) expect(op['x-spec-gap']).toBe(true);
      }
    }
    expect(doc.paths['/v1/api_keys'].post['x-scope']).toBe('iam:write');
    expect(doc.components.schemas.Error['x-spec-gap']).toBe(true);
  });

  it('is served at GET /v1/openapi.json without a credential', async () => {
    const r = await h.request('GET', '/v1/openapi.json', { key: null });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.text).toBe(currentOpenApi());
  });
});
