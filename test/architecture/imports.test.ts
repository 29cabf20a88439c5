/**
 * The import rules (DESIGN "Top level": arrows point one way, every folder is entered only through
 * its index.ts; docs/architecture.md draws the layers). Checked on the whole tree, and on made-up
 * imports to show each rule refuses what it should.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cycles, packageImporters, readTree, refusal, violations } from './import-graph.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const PRODUCTION = ['stores', 'runtime', 'kernel', 'actors', 'gateway', 'operator', 'bench', 'scripts', 'support', 'load', 'clients', 'examples'];
const tree = readTree(root, [...PRODUCTION, 'test'], ['main.ts']);
const production = tree.filter((f) => !f.file.startsWith('test/'));

describe('import rules (DESIGN "Top level")', () => {
  it('the tree was read (a guard against checking nothing)', () => {
    expect(production.length).toBeGreaterThan(100);
    expect(production.some((f) => f.file === 'kernel/index.ts')).toBe(true);
  });

  it('every import in the tree keeps the layering: stores <- kernel/base <- runtime <- kernel <- areas <- gateway', () => {
    expect(violations(tree)).toEqual([]);
  });

  it('no import cycle among production files, type-only imports included', () => {
    expect(cycles(production)).toEqual([]);
  });

  it('nothing outside test/ imports test/', () => {
    expect(production.filter((f) => f.imports.some((i) => i.startsWith('test/'))).map((f) => f.file)).toEqual([]);
  });

  it('only the transport file, and the bare server the benches measure against, import uWebSockets.js', () => {
    expect(packageImporters(tree, 'uWebSockets.js').sort()).toEqual(['gateway/uws.ts', 'support/bare-server.ts']);
  });

  it.each([
    ['actors/payroll/runs/run.ts', 'runtime/system.ts', 'an area past the runtime face'],
    ['actors/payroll/runs/run.ts', 'kernel/lists.ts', 'an area past the kernel face'],
    ['actors/payroll/runs/run.ts', 'actors/ledger/posting.ts', 'an area past another area\'s face'],
    ['runtime/system.ts', 'kernel/index.ts', 'the runtime upward into the kernel'],
    ['runtime/system.ts', 'actors/payroll/index.ts', 'the runtime into an area'],
    ['kernel/area.ts', 'runtime/system.ts', 'the kernel past the runtime face'],
    ['kernel/base/errors.ts', 'runtime/index.ts', 'the kernel base upward'],
    ['stores/memory/kv.ts', 'runtime/index.ts', 'the stores upward'],
    ['gateway/pipeline.ts', 'actors/accounts/index.ts', 'the gateway into an area'],
    ['bench/scenarios/payroll.ts', 'actors/payroll/runs/run.ts', 'the bench past an area face'],
    ['support/http.ts', 'gateway/uws.ts', 'support past the gateway face'],
    ['support/http.ts', 'test/payroll/support.ts', 'support into test/'],
    ['actors/allocation/supply-index.ts', 'test/allocation/oracle.ts', 'production code into test/'],
    ['load/cli.ts', 'kernel/index.ts', 'the load tool into the platform (it is a client of a running deployment)'],
    ['bench/run.ts', 'load/html.ts', 'another folder into load/'],
    ['clients/typescript/src/client.ts', 'kernel/index.ts', 'a client library into the platform (it is published alone)'],
    ['clients/device/src/device.ts', 'clients/typescript/src/index.ts', 'a client library into another package'],
    ['load/dispatch.ts', 'clients/typescript/src/transport.ts', 'the load tool past a client library\'s face'],
    ['gateway/pipeline.ts', 'clients/typescript/src/index.ts', 'the platform into a client library'],
    ['main.ts', 'clients/typescript/scripts/generate.ts', 'anything but scripts/ into the client generator'],
    ['examples/payroll-month.ts', 'kernel/index.ts', 'an example into the platform (it is a user\'s script against a running one)'],
  ])('a wrong import is refused: %s -> %s (%s)', (from, to) => {
    expect(refusal(from, to)).toBeTypeOf('string');
    expect(violations([{ file: from, imports: [to] }])).toHaveLength(1);
  });

  it.each([
    ['load/clients.ts', 'clients/typescript/src/index.ts'],
    ['load/cli.ts', 'clients/device/src/index.ts'],
    ['scripts/write-docs.ts', 'clients/typescript/scripts/generate.ts'],
    ['examples/field-worker-day.ts', 'clients/device/src/index.ts'],
    ['clients/typescript/src/client.ts', 'clients/typescript/src/generated.js'],
  ])('a client library is used through its face, and imports only itself: %s -> %s', (from, to) => {
    expect(refusal(from, to)).toBeUndefined();
  });

  it('a cycle is found, type-only or not', () => {
    expect(cycles([{ file: 'a.ts', imports: ['b.ts'] }, { file: 'b.ts', imports: ['c.ts'] }, { file: 'c.ts', imports: ['a.ts'] }])).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
  });
});
