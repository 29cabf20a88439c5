/**
 * The supply map under a busy organisation (docs/gaps.md#console): hundreds of workers turning
 * available and moving at once. The page asks the supply socket at most every ASK_EVERY_MS, so the
 * feed's 20-frames-a-second budget is never reached and no request is refused; every worker is
 * shown from their first state (listed while awaiting a first position, drawn from their first
 * reading), clustered into coarser cells when zoomed out; the offline base layer (Nigeria's
 * states) is drawn with no tile URL; and at 390 px the map spans the phone's width.
 */
import { join } from 'node:path';
import type { Browser, Page, WebSocket as PageSocket } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAvailability as setAvailabilityOf } from '../../actors/allocation/index.ts';
import { SNAPSHOT_WORKERS } from '../../actors/allocation/supply/supply-feed.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { heartbeats, makeAvailable, reading } from '../allocation/support.ts';
import { haveChromium, launch, mustHaveChromium, OUTPUT } from './browser.ts';

const run = haveChromium || mustHaveChromium;
const WAIT = 30_000;
const WORKERS = 400;
/** The supply socket's budget (actors/allocation supply-feed: framesPerSecond). */
const BUDGET = 20;

let h: Harness;
let browser: Browser;
let page: Page;
/** When the page sent each frame on its supply socket, and the error frames it received. */
const sent: number[] = [];
const refused: string[] = [];

/**
 * A second of the platform's clock after each batch: the supply socket's budget refills on that
 * clock, which stands still in the harness, while the page paces itself on the browser's.
 */
async function inBatches<T>(items: T[], size: number, fn: (x: T) => Promise<unknown>) {
  for (let i = 0; i < items.length; i += size) {
    await Promise.all(items.slice(i, i + size).map(fn));
    await h.clock.advance(1000);
  }
}

async function signIn(p: Page) {
  await p.goto(`${h.url}/console`);
  await p.fill('input[name=email]', h.registration.email);
  await p.fill('input[name=password]', h.registration.password);
  await p.click('#sign-in button[type=submit]');
  await p.waitForSelector('#app:not([hidden])', { timeout: WAIT });
  await p.waitForSelector('#map[data-map-state=ready]', { timeout: WAIT });
}

describe.skipIf(!run)('supply map under load, clustered, offline and at phone width', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    h = await startHarness();
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('pageerror', (e) => console.error('[console page error]', e.message));
    page.on('websocket', (ws: PageSocket) => {
      if (!ws.url().includes('/supply/stream')) return;
      ws.on('framesent', () => sent.push(Date.now()));
      ws.on('framereceived', (f) => {
        const text = String(f.payload);
        if (text.startsWith('{"error"')) refused.push(text);
      });
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it(`${WORKERS} workers turning available and moving at once: the page never asks faster than the budget, no request is refused, every worker is shown`, async () => {
    await signIn(page);
    await page.waitForSelector('[data-testid=live-status][data-state=live]', { timeout: WAIT });
    const workers = Array.from({ length: WORKERS }, (_, i) => `map_w_${process.pid}_${i}`);
    const spot = (i: number, step: number) => ({ latitude: 6.45 + (i % 20) * 0.01 + step * 0.002, longitude: 3.3 + Math.floor(i / 20) * 0.01, accuracy_metres: 8 });

    await inBatches(workers, 25, (w) => makeAvailable(h, w));
    // listed from their first state, before any reading: awaiting a first position
    await expect.poll(async () => Number(await page.getAttribute('#map', 'data-awaiting-position')), { timeout: WAIT }).toBe(WORKERS);
    expect(await page.locator('#workers tr[data-awaiting-position]').count()).toBeGreaterThan(0);

    for (let step = 0; step < 3; step++) {
      await h.clock.advance(30_000);
      await inBatches(workers.map((w, i) => [w, i] as const), 40, ([w, i]) => heartbeats(h, { worker_id: w, readings: [reading(h.clock.now() - 200, { position: spot(i, step) })] }));
    }
    await expect.poll(async () => Number(await page.getAttribute('#map', 'data-workers-drawn')), { timeout: WAIT }).toBe(WORKERS);
    expect(Number(await page.getAttribute('#map', 'data-awaiting-position'))).toBe(0);
    await page.screenshot({ path: join(OUTPUT, 'map-under-load.png') });

    expect(refused).toEqual([]);
    expect(await page.getAttribute('#map', 'data-feed-refusals')).toBeNull();
    expect(sent.length).toBeGreaterThan(3);
    // no second holds more frames than the budget (nor more than a quarter of it)
    let worst = 0;
    for (let i = 0, j = 0; i < sent.length; i++) {
      while (sent[i]! - sent[j]! >= 1000) j++;
      worst = Math.max(worst, i - j + 1);
    }
    expect(worst).toBeLessThanOrEqual(BUDGET / 4 + 1);
  });

  it('zoomed out, the workers are clustered into coarser cells: fewer shapes, every worker still drawn', async () => {
    const near = { cells: Number(await page.getAttribute('#map', 'data-cells')), res: Number(await page.getAttribute('#map', 'data-cluster-resolution')) };
    // zoom out as a person would, with the wheel over the map
    const box = (await page.locator('#map').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (let i = 0; i < 6; i++) await page.mouse.wheel(0, 600);
    await expect.poll(async () => Number(await page.getAttribute('#map', 'data-cluster-resolution')), { timeout: WAIT }).toBeLessThan(near.res);
    expect(Number(await page.getAttribute('#map', 'data-cells'))).toBeLessThan(near.cells);
    expect(Number(await page.getAttribute('#map', 'data-workers-drawn'))).toBe(WORKERS);
    expect(Number(await page.getAttribute('#map', 'data-basemap-states'))).toBeGreaterThan(0);
    await page.screenshot({ path: join(OUTPUT, 'map-clustered-offline-states.png') });
  });

  it('all of them: an organisation of more workers than a snapshot holds is listed whole (the page reads the rest of a truncated snapshot)', async () => {
    const caller = { org: h.org, livemode: false, principal: 'test' };
    const more = Array.from({ length: SNAPSHOT_WORKERS - WORKERS + 100 }, (_, i) => `map_more_${process.pid}_${i}`);
    for (let i = 0; i < more.length; i += 100) await Promise.all(more.slice(i, i + 100).map((id) => setAvailabilityOf(h.platform, caller, id, 'available')));
    const total = WORKERS + more.length;
    expect(total).toBeGreaterThan(SNAPSHOT_WORKERS);
    await page.reload();
    await page.waitForSelector('#map[data-map-state=ready]', { timeout: WAIT });
    await expect.poll(async () => Number(await page.getAttribute('#map', 'data-workers-drawn')) + Number(await page.getAttribute('#map', 'data-awaiting-position')), { timeout: WAIT }).toBe(total);
    expect(await page.textContent('#worker-count')).toContain(String(total));
    expect(refused).toEqual([]);
  });

  it('phone width (390 px): the map spans the screen above the lists', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    try {
      await signIn(phone);
      const map = (await phone.locator('#map').boundingBox())!;
      expect(map.width).toBeGreaterThan(340);
      expect(map.height).toBeGreaterThan(300);
      const list = (await phone.locator('#workers').boundingBox())!;
      expect(list.y).toBeGreaterThan(map.y + map.height - 1);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await phone.screenshot({ path: join(OUTPUT, 'phone-390.png'), fullPage: false });
      // the queues and the payroll runs fit the phone's width too (wide tables scroll within themselves)
      await phone.click('nav button[data-tab=queues]');
      await phone.waitForSelector('#flags [data-role=page]', { timeout: WAIT });
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await phone.screenshot({ path: join(OUTPUT, 'phone-390-queues.png'), fullPage: false });
    } finally {
      await phone.close();
    }
  });
});
