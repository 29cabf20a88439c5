/**
 * Writes the documents generated from the code, so they cannot drift from it (DESIGN "Gateway":
 * docs/openapi.json from the route declarations; spec 6: docs/events.md from the areas' event
 * declarations):
 *   npm run openapi     docs/openapi.json
 *   npm run events      docs/events.md
 * Tests compare the committed files with what this writes (test/gateway/openapi.test.ts,
 * test/delivery/catalogue.test.ts).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { areas } from '../actors/index.ts';
import { EventCatalogue, renderCatalogue } from '../actors/delivery/index.ts';
import { openApiDocument } from '../gateway/index.ts';

const docsFile = (name: string): string => fileURLToPath(new URL(`../docs/${name}`, import.meta.url));

export const OPENAPI_FILE = docsFile('openapi.json');
export const CATALOGUE_DOC = docsFile('events.md');

export const currentOpenApi = (): string => openApiDocument(areas);
const currentCatalogue = (): string => renderCatalogue(new EventCatalogue(areas));

/** Each document by the name given on the command line: where it goes and what it holds now. */
const DOCUMENTS = new Map<string, { file: string; render: () => string }>([
  ['openapi', { file: OPENAPI_FILE, render: currentOpenApi }],
  ['events', { file: CATALOGUE_DOC, render: currentCatalogue }],
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
