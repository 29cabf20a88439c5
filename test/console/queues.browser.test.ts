/**
 * Queues for people in the console (docs/gaps.md#console): 50 open integrity flags are searched,
 * paged and decided in bulk with one reason (each its own request); the queue updates live when
 * the supply socket names a worker whose flag was raised since; a queue row jumps to the worker's
 * card on the map. The test checks the API's records afterwards.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';
import { heartbeats, LAGOS, makeAvailable, reading } from '../allocation/support.ts';
import { haveChromium, launch, mustHaveChromium, OUTPUT } from './browser.ts';

const run = haveChromium || mustHaveChromium;
const WAIT = 20_000;
const FLAGS = 50;

let h: Harness;
let browser: Browser;
let page: Page;

/** A worker whose second reading reports a mocked location: one open integrity flag. */
async function flagged(worker: string) {
  await makeAvailable(h, worker);
  await h.clock.advance(1000); // readings after the worker became available
  const p = { position: { ...LAGOS, accuracy_metres: 8 } };
  expect((await heartbeats(h, { worker_id: worker, readings: [reading(h.clock.now() - 900, p)] })).status).toBeLessThan(300);
  expect((await heartbeats(h, { worker_id: worker, readings: [reading(h.clock.now() - 100, { ...p, mock_location_detected: true })] })).status).toBeLessThan(300);
}

const openFlags = async () => {
  const out: { id: string; worker_id: string }[] = [];
  for (let after = ''; ; ) {
    const page = (await h.request('GET', `/v1/allocation/integrity_flags?status=open&limit=100${after ? `&starting_after=${after}` : ''}`)).body;
    out.push(...page.data);
    if (!page.has_more) return out;
    after = page.next_cursor;
  }
};

describe.skipIf(!run)('queues: searched, paged, decided in bulk, live', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    h = await startHarness();
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('pageerror', (e) => console.error('[console page error]', e.message));
    const workers = Array.from({ length: FLAGS }, (_, i) => `queue_w_${process.pid}_${String(i).padStart(2, '0')}`);
    for (const w of workers) await flagged(w); // one at a time: each advances the shared clock
    await h.platform.system.settle();
    expect(await openFlags()).toHaveLength(FLAGS);
    await page.goto(`${h.url}/console`);
    await page.fill('input[name=email]', h.registration.email);
    await page.fill('input[name=password]', h.registration.password);
    await page.click('#sign-in button[type=submit]');
    await page.waitForSelector('[data-testid=live-status][data-state=live]', { timeout: WAIT });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('50 open flags: paged 25 at a time with short ids, searched by worker; a row jumps to the worker on the map', async () => {
    await page.click('nav button[data-tab=queues]');
    await expect.poll(() => page.getAttribute('#flags', 'data-count'), { timeout: WAIT }).toBe(String(FLAGS));
    expect(await page.locator('#flags tr[data-flag]').count()).toBe(25);
    expect(await page.textContent('#flags [data-role=page]')).toContain('page 1 of 2');
    await page.click('#flags [data-nav="1"]');
    expect(await page.textContent('#flags [data-role=page]')).toContain('page 2 of 2');
    const first = (await openFlags())[0]!;
    const idTag = page.locator(`#flags [data-copy="${first.id}"]`);
    await page.fill('#flags input[name=q]', first.worker_id);
    await expect.poll(() => page.locator('#flags tr[data-flag]').count(), { timeout: WAIT }).toBe(1);
    expect((await idTag.textContent())!.length).toBeLessThan(first.id.length);
    await page.screenshot({ path: join(OUTPUT, 'queues-flags-search.png') });
    await page.click(`#flags tr[data-flag="${first.id}"] button[data-card]`);
    await page.waitForSelector(`#worker-card[data-worker="${first.worker_id}"] [data-field=presence]`, { timeout: WAIT });
    expect(await page.isVisible('#tab-supply')).toBe(true);
    await page.click('nav button[data-tab=queues]');
    await page.fill('#flags input[name=q]', '');
  });

  it('a bulk decision of all 50 flags with one reason: each is recorded dismissed with that reason', async () => {
    await expect.poll(() => page.locator('#flags tr[data-flag]').count(), { timeout: WAIT }).toBe(25);
    await page.click('#flags [data-select=matching]');
    expect(await page.textContent('#flags [data-role=ticked]')).toBe(`${FLAGS} selected`);
    await page.selectOption('#flags form.bulk select[name=outcome]', 'dismissed');
    await page.fill('#flags form.bulk input[name=reason]', 'Emulator test devices of the pilot; not fraud.');
    await page.screenshot({ path: join(OUTPUT, 'queues-bulk-selected.png') });
    await page.click('#flags form.bulk button[type=submit]');
    await expect.poll(() => page.textContent('#flags form.bulk [data-role=result]'), { timeout: 60_000 }).toBe(`${FLAGS} of ${FLAGS} decided dismissed.`);
    await page.waitForSelector('#flags [data-testid=no-flags]', { timeout: WAIT });
    await page.screenshot({ path: join(OUTPUT, 'queues-bulk-decided.png') });
    expect(await openFlags()).toHaveLength(0);
    const dismissed = (await h.request('GET', '/v1/allocation/integrity_flags?status=dismissed&limit=100')).body.data as { decision: { reason: string } }[];
    expect(dismissed).toHaveLength(FLAGS);
    expect(new Set(dismissed.map((f) => f.decision.reason))).toEqual(new Set(['Emulator test devices of the pilot; not fraud.']));
  });

  it('live: a flag raised while the queue is shown appears without a refresh (the supply socket names its worker)', async () => {
    const worker = `queue_w_${process.pid}_live`;
    await flagged(worker);
    await page.waitForSelector(`#flags tr[data-flag] button[data-card="${worker}"]`, { timeout: WAIT });
    expect(await page.getAttribute('#flags', 'data-count')).toBe('1');
  });
});
