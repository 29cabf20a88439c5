/**
 * `npm run operator -- backup PATH` (DESIGN "Stores"; issue 33 "Backup while serving": "writes a
 * consistent copy without stopping the platform; starting with DATA_DIR at the copy restores it").
 * A real platform on local stores, its real operator socket and the real CLI process.
 */
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startOperatorSocket } from '../../operator/server.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { localTestStores, storeFamily, tempDir } from '../../support/stores.ts';
import { ManualClock } from '../../runtime/index.ts';
import { createMemoryStores, DATA_FORMAT } from '../../stores/index.ts';
import { cli, expectPopulated, listAll, populate } from './support.ts';

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function serving(h: Harness) {
  const sockDir = tempDir('op-');
  const sock = await startOperatorSocket(h.platform, join(sockDir, 'operator.sock'));
  cleanup.push(() => rmSync(sockDir, { recursive: true, force: true }));
  cleanup.push(() => sock.close());
  return sock.path;
}

/** The CLI's failure: exit code 1 and the operator's error on stdout. */
async function refusal(args: string[], socket: string, cwd?: string) {
  const failed = await cli(args, { cwd, env: { OPERATOR_SOCKET: socket } }).then(
    () => expect.fail('the CLI succeeded'),
    (e: { code: number; stdout: string }) => e,
  );
  expect(failed.code).toBe(1);
  return JSON.parse(failed.stdout) as { code: string; message: string };
}

// The copy is of the local family; the suite's other families add nothing here.
describe.runIf(storeFamily() === 'local')('operator backup (DESIGN "Stores", issue 33 "Backup while serving")', () => {
  it('backup PATH - a copy taken while writes are in flight holds every record acknowledged before it began; a platform started on it serves them with the same API keys', async () => {
    const dataDir = tempDir();
    const work = tempDir('op-cwd-');
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    cleanup.push(() => rmSync(work, { recursive: true, force: true }));
    const clock = new ManualClock();
    const h = await startHarness({ clock, stores: localTestStores(clock, { dir: dataDir, keep: true }) });
    let up = true;
    cleanup.push(() => (up ? h.close() : undefined));
    const socket = await serving(h);
    const p = await populate(h);

    // Eight writers create API keys one after another until the backup has answered.
    const acked: Array<{ id: string; key: string }> = [];
    let sent = 0;
    let stop = false;
    let enough: () => void;
    const twenty = new Promise<void>((r) => (enough = r));
    const writers = Array.from({ length: 8 }, async (_, w) => {
      while (!stop) {
        const n = sent++;
        const r = await h.request('POST', '/v1/api_keys', { key: p.o.key, idempotencyKey: `ik-backup-${w}-${n}`, body: { name: `writer ${w} #${n}` } });
        expect(r.status, r.text).toBe(200);
        acked.push({ id: r.body.id, key: r.body.key });
        if (acked.length >= 20) enough();
      }
    });
    let before: typeof acked;
    let during: number;
    let stdout: string;
    try {
      await twenty;
      before = acked.slice();
      // A relative PATH names a directory under the CLI's working directory.
      ({ stdout } = await cli(['backup', 'copy'], { cwd: work, env: { OPERATOR_SOCKET: socket } }));
      during = acked.length - before.length;
    } finally {
      stop = true;
      await Promise.allSettled(writers);
    }
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({ path: join(work, 'copy'), format: DATA_FORMAT, bytes: expect.any(Number) });
    expect(readdirSync(join(work, 'copy')).sort()).toEqual(['format.json', 'lmdb']);
    // The copy was taken with writes going on (a guard against a backup that only ran idle).
    expect(during).toBeGreaterThan(0);

    up = false;
    await h.close();
    const restored = await startHarness({ clock: new ManualClock(clock.now()), stores: localTestStores(clock, { dir: join(work, 'copy') }) });
    cleanup.push(() => restored.close());
    await expectPopulated(restored, p, [p.o.key, p.second.key]);
    const listed = new Set((await listAll(restored, '/v1/api_keys', p.o.key)).map((k) => k.id));
    for (const k of before) expect(listed.has(k.id), `key ${k.id} acknowledged before the backup began`).toBe(true);
    // Nothing in the copy was never acknowledged.
    const known = new Set([p.o.keyId, p.second.id, ...acked.map((k) => k.id)]);
    expect([...listed].filter((id) => !known.has(id))).toEqual([]);
    // A key made before the backup still authenticates: its digest was copied with the journal.
    const me = await restored.request('GET', `/v1/payroll/runs/${p.runId}`, { key: before[before.length - 1].key });
    expect(me.status, me.text).toBe(200);
  });

  it('backup PATH - refused with validation_failed when PATH is not new or empty, or inside the data directory; nothing is written', async () => {
    const dataDir = tempDir();
    cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const clock = new ManualClock();
    const h = await startHarness({ clock, stores: localTestStores(clock, { dir: dataDir, keep: true }) });
    cleanup.push(() => h.close());
    const socket = await serving(h);
    const full = tempDir('op-full-');
    cleanup.push(() => rmSync(full, { recursive: true, force: true }));
    writeFileSync(join(full, 'notes.txt'), 'kept');

    const notEmpty = await refusal(['backup', full], socket);
    expect(notEmpty).toMatchObject({ code: 'validation_failed', message: expect.stringContaining('is not empty') });
    expect(readdirSync(full)).toEqual(['notes.txt']);

    const inside = await refusal(['backup', join(dataDir, 'copy')], socket);
    expect(inside).toMatchObject({ code: 'validation_failed', message: expect.stringContaining('inside the data directory') });
    expect(existsSync(join(dataDir, 'copy'))).toBe(false);
  });

  it('backup PATH - refused with validation_failed on a platform whose stores have no backup (memory)', async () => {
    const clock = new ManualClock();
    const h = await startHarness({ clock, stores: createMemoryStores({ now: () => clock.now() }) });
    cleanup.push(() => h.close());
    const socket = await serving(h);
    const target = join(tempDir('op-mem-'), 'copy');
    cleanup.push(() => rmSync(join(target, '..'), { recursive: true, force: true }));
    const refused = await refusal(['backup', target], socket);
    expect(refused).toMatchObject({ code: 'validation_failed', message: expect.stringContaining('memory') });
    expect(existsSync(target)).toBe(false);
  });
});

describe.runIf(storeFamily() === 'local')('operator backup arguments', () => {
  it('backup - a PATH is required (exit 2 with the usage, nothing sent)', async () => {
    const failed = await cli(['backup'], { env: { OPERATOR_SOCKET: join(tempDir('op-none-'), 'absent.sock') } }).then(
      () => expect.fail('the CLI succeeded'),
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain('backup needs a PATH');
  });
});
