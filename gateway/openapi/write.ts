/** `npm run openapi`: writes docs/openapi.json from every area's route declarations. */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { areas } from '../../actors/index.ts';
import { renderOpenApi } from './build.ts';
import { gatewayRoutes } from './route.ts';

export const OPENAPI_FILE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'openapi.json');

export const currentOpenApi = (): string => renderOpenApi(areas, gatewayRoutes(areas));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(OPENAPI_FILE, currentOpenApi());
  console.log(`wrote ${OPENAPI_FILE}`);
}
