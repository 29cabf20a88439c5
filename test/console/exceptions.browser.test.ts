/**
 * A bulk decision of open exceptions in the console (docs/gaps.md#console "Queues for people"):
 * assignments whose start passcode was entered without a geofence entry each raise an exception
 * (spec 3 "Work orders, offers, assignments, exceptions"); the queue ticks every one matching, and
 * one outcome and one reason decide them all, each its own request (spec 4.7 adjudicate). The test
 * checks the API's records afterwards.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';
import { dispatchKit, type Point } from '../allocation/dispatch-support.ts';
import { haveChromium, launch, mustHaveChromium, OUTPUT } from './browser.ts';

const run = haveChromium || mustHaveChromium;
const WAIT = 20_000;
const EXCEPTIONS = 6;
const REASON = 'Passcodes read out by phone at the gate; the site confirmed each worker.';

let h: Harness;
let browser: Browser;
let page: Page;
const made: { exception: string; assignment: string }[] = [];

/** One work order for EXCEPTIONS workers, each accepted, assigned and started away from the site: one open exception each. */
async function openExceptions(kit: ReturnType<typeof dispatchKit>) {
  const p: Point = kit.centre();
  for (let i = 0; i < EXCEPTIONS; i++) await kit.worker(p, 300 + 20 * i);
  const wo = await kit.open(p, { location: { ...p, radius_metres: 100 }, search_radius_metres: 5000, headcount: EXCEPTIONS, cascade_width: EXCEPTIONS });
  const offers = await kit.offers(wo.id);
  expect(offers).toHaveLength(EXCEPTIONS);
  for (const offer of offers) {
    expect((await kit.post(`/v1/allocation/offers/${offer.id}/accept`)).status).toBe(200);
    const asg = await kit.post('/v1/allocation/assignments', { offer_id: offer.id });
    expect(asg.status, asg.text).toBe(201);
    const arrived = await kit.post(`/v1/allocation/assignments/${asg.body.id}/arrive`, { passcode: asg.body.passcodes.start });
    expect(arrived.body).toMatchObject({ status: 'exception' });
    made.push({ exception: arrived.body.exception_id, assignment: asg.body.id });
  }
}

describe.skipIf(!run)('exceptions decided in bulk', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    h = await startHarness();
    await openExceptions(dispatchKit(h));
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('pageerror', (e) => console.error('[console page error]', e.message));
    await page.goto(`${h.url}/console?tab=queues`);
    await page.fill('input[name=email]', h.registration.email);
    await page.fill('input[name=password]', h.registration.password);
    await page.click('#sign-in button[type=submit]');
    await page.waitForSelector('#app:not([hidden])', { timeout: WAIT });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('adjudicate (spec 4.7): every open exception ticked and decided dismissed with one reason; each is recorded with it and its assignment closed', async () => {
    await expect.poll(() => page.getAttribute('#exceptions', 'data-count'), { timeout: WAIT }).toBe(String(EXCEPTIONS));
    expect(await page.textContent('#exceptions')).toContain('start_passcode_without_geofence_entry');
    await page.click('#exceptions [data-select=matching]');
    expect(await page.textContent('#exceptions [data-role=ticked]')).toBe(`${EXCEPTIONS} selected`);
    await page.selectOption('#exceptions form.bulk select[name=outcome]', 'dismissed');
    await page.fill('#exceptions form.bulk input[name=reason]', REASON);
    await page.screenshot({ path: join(OUTPUT, 'queues-exceptions-bulk-selected.png') });
    await page.click('#exceptions form.bulk button[type=submit]');
    await expect.poll(() => page.textContent('#exceptions form.bulk [data-role=result]'), { timeout: 60_000 }).toBe(`${EXCEPTIONS} of ${EXCEPTIONS} decided dismissed.`);
    await page.waitForSelector('#exceptions [data-testid=no-exceptions]', { timeout: WAIT });
    await page.screenshot({ path: join(OUTPUT, 'queues-exceptions-bulk-decided.png') });
    for (const m of made) {
      const x = (await h.request('GET', `/v1/allocation/exceptions/${m.exception}`)).body;
      expect(x).toMatchObject({ status: 'dismissed', decision: { outcome: 'dismissed', reason: REASON } });
      expect((await h.request('GET', `/v1/allocation/assignments/${m.assignment}`)).body.status).toBe('closed');
    }
    expect((await h.request('GET', '/v1/allocation/exceptions')).body.data).toHaveLength(0);
  });
});
