/** GET /v1/openapi.json: the generated document, served without a credential. */
import { type Area, type Platform, route, type RouteDef } from '../../kernel/index.ts';
import { healthRoutes } from '../health.ts';
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
    handler: async () => ({ raw: { contentType: 'application/json', bytes: (doc ??= renderOpenApi(areas, gatewayRoutes(areas))) } }),
  });
  return [self, ...healthRoutes()];
}

/** The gateway's own routes served beside the areas': this document and the health routes. */
export const ownRoutes = (platform: Platform): RouteDef[] => gatewayRoutes(platform.areas);

/** The document GET /v1/openapi.json serves for these areas (what `npm run openapi` writes). */
export const openApiDocument = (areas: readonly Area[]): string => renderOpenApi(areas, gatewayRoutes(areas));
