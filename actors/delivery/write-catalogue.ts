/**
 * Writes docs/events.md from the mounted areas' declarations:
 *   node --import tsx actors/delivery/write-catalogue.ts
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { areas } from '../index.ts';
import { EventCatalogue, renderCatalogue } from './catalogue.ts';

export const CATALOGUE_DOC = fileURLToPath(new URL('../../docs/events.md', import.meta.url));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(CATALOGUE_DOC, renderCatalogue(new EventCatalogue(areas)));
  console.log(`wrote ${CATALOGUE_DOC}`);
}
