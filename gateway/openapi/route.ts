/** GET /v1/openapi.json: the generated document, served without a credential. */
import { type Area, type Platform, route, type RouteDef } from '../../kernel/index.ts';
import { OPENAPI_PATH, renderOpenApi } from './build.ts';

/** The gateway's own routes, given the areas (the document lists itself too). */
export function gatewayRoutes(areas: readonly Area[]): RouteDef[] {
  let doc: string | undefined;
  const self: RouteDef = route({
    method: 'GET',
    path: OPENAPI_PATH,
    auth: 'none',
    module: null,
    idempotent: false,
    summary: 'This OpenAPI 3.1 document, generated from the route declarations.',
    specGap: 'The specification names no path for a machine-readable description.',
    handler: async () => ({ raw: { contentType: 'application/json', bytes: (doc ??= renderOpenApi(areas, [self])) } }),
  });
  return [self];
}

export const openApiRoute = (platform: Platform): RouteDef => gatewayRoutes(platform.areas)[0];

/** The document GET /v1/openapi.json serves for these areas (what `npm run openapi` writes). */
export const openApiDocument = (areas: readonly Area[]): string => renderOpenApi(areas, gatewayRoutes(areas));
