/**
 * Writes the documents generated from the code, so they cannot drift from it (DESIGN "Gateway":
 * docs/openapi.json from the route declarations; spec 6: docs/events.md from the areas' event
 * declarations; spec 7: docs/errors.md from the kernel's error catalogue):
 *   npm run openapi     docs/openapi.json
 *   npm run events      docs/events.md
 *   npm run client      clients/typescript/src/generated.ts, the client's types from docs/openapi.json
 *   npm run docs        all of them
 * Tests compare the committed files with what this writes (test/gateway/openapi.test.ts,
 * test/delivery/catalogue.test.ts, test/architecture/error-catalogue.test.ts,
 * test/clients/typescript-generated.test.ts).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { areas } from '../actors/index.ts';
import { CATALOGUE } from '../kernel/index.ts';
import { EventCatalogue, renderCatalogue } from '../actors/delivery/index.ts';
import { openApiDocument } from '../gateway/index.ts';
import { renderClient } from '../clients/typescript/scripts/generate.ts';

const docsFile = (name: string): string => fileURLToPath(new URL(`../docs/${name}`, import.meta.url));

export const OPENAPI_FILE = docsFile('openapi.json');
export const CATALOGUE_DOC = docsFile('events.md');
export const ERRORS_DOC = docsFile('errors.md');
export const CLIENT_TYPES = fileURLToPath(new URL('../clients/typescript/src/generated.ts', import.meta.url));

export const currentOpenApi = (): string => openApiDocument(areas);
const currentCatalogue = (): string => renderCatalogue(new EventCatalogue(areas));

/** docs/errors.md: the error catalogue as a reader sees it (spec 7; STYLE "One error catalogue"). */
export function currentErrors(): string {
  const rows = Object.entries(CATALOGUE).map(([code, c]) => `| \`${code}\` | ${c.status} | ${c.spec ? 'yes' : 'no (docs/gaps.md)'} | ${c.doc} |`);
  return [
    '# Error codes',
    '',
    'Generated from `kernel/base/errors.ts` (`CATALOGUE`) by `npm run docs`; a test',
    'keeps this page, the OpenAPI document and the code in step. Every refusal is',
    '`{ "error": { "code", "message", "request_id", "retryable", "validation"? } }` (docs/gaps.md#gateway);',
    'branch on `code`, never on `message`. "Named by the spec" says whether spec 7 names the code; the',
    'others fill a "not named" row of spec 7 and are listed in docs/gaps.md.',
    '',
    '| code | HTTP status | named by the spec | meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/** Each document by the name given on the command line: where it goes and what it holds now. */
const DOCUMENTS = new Map<string, { file: string; render: () => string }>([
  ['openapi', { file: OPENAPI_FILE, render: currentOpenApi }],
  ['events', { file: CATALOGUE_DOC, render: currentCatalogue }],
  ['errors', { file: ERRORS_DOC, render: currentErrors }],
  ['client', { file: CLIENT_TYPES, render: () => renderClient(JSON.parse(currentOpenApi())) }],
]);

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const names = process.argv.slice(2);
  for (const name of names.length > 0 ? names : DOCUMENTS.keys()) {
    const doc = DOCUMENTS.get(name);
    if (!doc) throw new Error(`write-docs: no document named ${name}; known: ${[...DOCUMENTS.keys()].join(', ')}`);
    writeFileSync(doc.file, doc.render());
    console.log(`wrote ${doc.file}`);
  }
}
