/**
 * A dispatcher's work in the console (docs/gaps.md#console): a click on the map opens the form for
 * a work order there (radius, occupation, claims, window, headcount); the work order's cascade is
 * watched as the supply socket pushes it, an offer accepted; the accepted offer's assignment is
 * made from the page, listed, followed to its proof, and an exception raised on it; a worker's card
 * (availability, presence, gates, last readings, offers, assignments); a work order cancelled; a short id carries
 * the full one. Every action is the page's own call of the public API; the test checks the API's
 * records afterwards.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';
import { dispatchKit, type Point } from '../allocation/dispatch-support.ts';
import { haveChromium, launch, mustHaveChromium, OUTPUT } from './browser.ts';

const run = haveChromium || mustHaveChromium;
const WAIT = 20_000;

let h: Harness;
let browser: Browser;
let page: Page;
let kit: ReturnType<typeof dispatchKit>;

/** Clicks the map away from any worker or work order, and fills the form it opens with `at` and the rest. */
async function openOnMap(at: Point, fields: Record<string, string>) {
  const box = (await page.locator('#map').boundingBox())!;
  await page.mouse.click(box.x + 30, box.y + box.height - 30);
  await page.waitForSelector('#open-work-order:not([hidden])', { timeout: WAIT });
  expect(Number(await page.inputValue('#open-work-order input[name=latitude]'))).not.toBeNaN();
  const local = (ms: number) => page.evaluate((t) => {
    const d = new Date(t);
    const p = (n: number) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
  }, ms);
  const values: Record<string, string> = {
    latitude: String(at.latitude),
    longitude: String(at.longitude),
    starts_at: await local(h.clock.now()),
    ends_at: await local(h.clock.now() + 4 * 3_600_000),
    ...fields,
  };
  for (const [k, v] of Object.entries(values)) await page.fill(`#open-work-order [name=${k}]`, v);
  await page.click('#open-work-order button[type=submit]');
  await expect.poll(() => page.textContent('#open-work-order [data-role=result]'), { timeout: WAIT }).toMatch(/Opened \S+: |\(/);
  const id = await page.getAttribute('#open-work-order', 'data-opened');
  expect(id, (await page.textContent('#open-work-order [data-role=result]'))!).toMatch(/work_order_/);
  return id!;
}

describe.skipIf(!run)('dispatch from the console', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    h = await startHarness();
    kit = dispatchKit(h);
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('pageerror', (e) => console.error('[console page error]', e.message));
    await page.goto(`${h.url}/console`);
    await page.fill('input[name=email]', h.registration.email);
    await page.fill('input[name=password]', h.registration.password);
    await page.click('#sign-in button[type=submit]');
    await page.waitForSelector('#map[data-map-state=ready]', { timeout: WAIT });
    await page.waitForSelector('[data-testid=live-status][data-state=live]', { timeout: WAIT });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('a work order opened by clicking the map: its offer is watched to accepted, its assignment made, listed, followed to proof, and an exception raised', async () => {
    const P: Point = { latitude: 6.53, longitude: 3.37 };
    const w = await kit.worker(P, 150);
    const id = await openOnMap(P, { radius_metres: '300', search_radius_metres: '3000', headcount: '1', cascade_width: '1', offer_timeout_seconds: '600' });
    const made = (await h.request('GET', `/v1/allocation/work_orders/${id}`)).body;
    expect(made).toMatchObject({ status: 'open', headcount: 1, location: { latitude: P.latitude, longitude: P.longitude, radius_metres: 300 } });

    const card = `[data-work-order="${id}"]`;
    await page.waitForSelector(`${card} tr[data-offer][data-status=pending]`, { timeout: WAIT });
    expect(await page.textContent(`${card} tr[data-offer]`)).toContain(w.worker);
    await page.screenshot({ path: join(OUTPUT, 'dispatch-opened.png') });

    // the worker's card, from the offer's row
    await page.click(`${card} tr[data-offer] button[data-card]`);
    await page.waitForSelector('#worker-card [data-field=presence]', { timeout: WAIT });
    expect(await page.textContent('#worker-card [data-field=availability]')).toContain('available');
    expect(await page.textContent('#worker-card [data-field=gates]')).toContain('in the supply map');
    expect(await page.locator('#worker-card li[data-offer]').count()).toBe(1);
    // its last reading: where kit.worker put it, 150 m north of the point
    expect(await page.locator('#worker-card [data-role=readings] tbody tr').count()).toBe(1);
    expect(await page.textContent('#worker-card [data-role=readings]')).toContain((P.latitude + 150 / 111_320).toFixed(5));

    // the worker accepts on their phone: the page follows without a reload
    const [offer] = await kit.offers(id);
    expect((await kit.post(`/v1/allocation/offers/${offer!.id}/accept`)).status).toBe(200);
    await page.waitForSelector(`${card}[data-status=filled] tr[data-offer="${offer!.id}"][data-status=accepted]`, { timeout: WAIT });
    expect(await page.textContent(`${card} [data-cascade=accepted], ${card}`)).toContain('1/1 accepted');
    await page.screenshot({ path: join(OUTPUT, 'dispatch-offer-accepted.png') });

    await page.click(`${card} button[data-op=assign]`);
    await expect.poll(() => page.textContent(`${card} tr[data-offer="${offer!.id}"] [data-role=result]`), { timeout: WAIT }).toMatch(/Assignment \S+ made/);
    const assignments = (await h.request('GET', `/v1/allocation/assignments?worker_id=${w.worker}`)).body.data;
    expect(assignments).toHaveLength(1);
    const asg = assignments[0];
    const row = `#assignments tr[data-assignment="${asg.id}"]`;
    await page.waitForSelector(row, { timeout: WAIT });
    expect(await page.getAttribute(`${row} button[data-at]`, 'data-at')).toBe(`${P.latitude},${P.longitude}`);
    await page.click(`${row} button[data-proof]`);
    await page.waitForSelector(`${row} [data-role=proof] *`, { timeout: WAIT });
    const proofApi = await h.request('GET', `/v1/allocation/assignments/${asg.id}/proof`);
    const proofShown = (await page.textContent(`${row} [data-role=proof]`))!;
    if (proofApi.status === 200) expect(proofShown).toContain(asg.id);
    else expect(proofShown).toContain(proofApi.body.error.message);

    // an exception is raised on an assignment under way: before the worker sets off, the API's refusal is shown
    await page.fill(`${row} input[name=reason]`, 'The site manager reports the worker is not there.');
    await page.click(`${row} button[data-op=raise_exception]`);
    await expect.poll(() => page.getAttribute(`${row} [data-role=result]`, 'class'), { timeout: WAIT }).toBe('error');
    expect(await page.textContent(`${row} [data-role=result]`)).toContain('(conflict)');
    expect((await kit.post(`/v1/allocation/assignments/${asg.id}/start`)).status).toBe(200);
    await page.click(`${row} button[data-op=raise_exception]`);
    await expect.poll(() => page.getAttribute(`${row} [data-role=result]`, 'class'), { timeout: WAIT }).toBe('ok');
    const after = (await h.request('GET', `/v1/allocation/assignments/${asg.id}`)).body;
    expect(after.status).toBe('exception');
    await page.waitForSelector(`#assignments tr[data-assignment="${asg.id}"][data-status=exception]`, { timeout: WAIT });
    await page.screenshot({ path: join(OUTPUT, 'dispatch-assignment.png') });
  });

  it('a work order is asked for its next wave (the API keeps the cascade width) and cancelled from the page; a short id copies the full one', async () => {
    const P: Point = { latitude: 6.55, longitude: 3.40 };
    await kit.worker(P, 200);
    await kit.worker(P, 400);
    const id = await openOnMap(P, { radius_metres: '250', search_radius_metres: '2000', headcount: '2', cascade_width: '1', offer_timeout_seconds: '600' });
    const card = `[data-work-order="${id}"]`;
    await page.waitForSelector(`${card}[data-status=open]`, { timeout: WAIT });
    // one offer a wave: asked for the next wave while the wave's offer is pending, the API offers
    // no more than the cascade width, and the page says what it answered
    await expect.poll(() => page.textContent(`${card} [data-cascade=offered]`), { timeout: WAIT }).toBe('offered 1');
    await page.click(`${card} button[data-op=offer]`);
    await expect.poll(() => page.textContent(`${card} .actions [data-role=result]`), { timeout: WAIT }).toBe('Done: open.');
    expect(await kit.offers(id)).toHaveLength(1);
    const shown = (await page.textContent(`${card} code.id`))!;
    expect(shown.length).toBeLessThan(id.length);
    expect(await page.getAttribute(`${card} code.id`, 'data-copy')).toBe(id);
    await page.fill(`${card} input[name=reason]`, 'The client called it off.');
    await page.click(`${card} button[data-op=cancel]`);
    await page.waitForSelector(`${card}[data-status=cancelled]`, { timeout: WAIT });
    expect((await h.request('GET', `/v1/allocation/work_orders/${id}`)).body.status).toBe('cancelled');
    const offers = await kit.offers(id);
    expect(offers.every((o) => o.status !== 'pending')).toBe(true);
  });
});
