/**
 * Writes docs/errors.md, the error catalogue as a reader sees it, from the kernel's CATALOGUE
 * (spec 7; STYLE "One error catalogue"):  node --import tsx scripts/write-errors.ts
 * A test holds the document, the OpenAPI document and the code in step.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CATALOGUE } from '../kernel/index.ts';

const FILE = fileURLToPath(new URL('../docs/errors.md', import.meta.url));

function render(): string {
  const rows = Object.entries(CATALOGUE).map(([code, c]) => `| \`${code}\` | ${c.status} | ${c.spec ? 'yes' : 'no (docs/gaps.md)'} | ${c.doc} |`);
  return [
    '# Error codes',
    '',
    'Generated from `kernel/base/errors.ts` (`CATALOGUE`) by `node --import tsx scripts/write-errors.ts`; a test',
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

writeFileSync(FILE, render());
console.log(`wrote ${FILE}`);
