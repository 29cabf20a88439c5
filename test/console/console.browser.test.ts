/**
 * The operator console in headless Chromium (DESIGN "operator console"; docs/gaps.md#console):
 * a person signs in with a session, sees workers appear on the supply map while a simulated device
 * sends heartbeats over the platform's WebSocket (the page follows by the supply feed's push over
 * its own WebSocket, never polling), adjudicates an integrity flag, invites a second person who
 * joins with the invitation's token and approves a payroll run after the preparer was refused;
 * deliveries are replayed. Every action is the page's own call of the public API; the test checks
 * the API's records afterwards.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { latLngToCell } from 'h3-js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEARTBEAT_SOCKET_PATH } from '../../actors/allocation/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { connect, type TestSocket } from '../../support/ws.ts';
import { dispatchKit, type Point } from '../allocation/dispatch-support.ts';
import { deviceKey, makeAvailable, setAvailability } from '../allocation/support.ts';
import { calculatedRun, importPayees, post } from '../payroll/support.ts';
import { haveChromium, launch, mustHaveChromium, OUTPUT } from './browser.ts';

const run = haveChromium || mustHaveChromium;
const WAIT = 20_000;
const LAGOS = { latitude: 6.5244, longitude: 3.3792 };

let h: Harness;
let browser: Browser;
let page: Page;
let receiver: Server;
/** Each worker's device: a heartbeat socket opened with the worker's own device credential (spec 4.7). */
const devices = new Map<string, TestSocket>();
let kit: ReturnType<typeof dispatchKit>;
let ik = 0;
const idem = () => `ik-console-${process.pid}-${++ik}`;

function reading(at: number, latitude: number, longitude: number, over: Record<string, unknown> = {}) {
  return {
    recorded_at: new Date(at).toISOString(),
    position: { latitude, longitude, accuracy_metres: 8 },
    connectivity: 'good',
    availability: 'available',
    battery_percent: 71,
    mock_location_detected: false,
    device_integrity_attested: true,
    ...over,
  };
}

/** One heartbeat batch over the worker's device socket; the receipt frame back. */
async function beat(worker: string, readings: unknown[]) {
  let device = devices.get(worker);
  if (!device) devices.set(worker, (device = await connect(`http://127.0.0.1:${h.port}${HEARTBEAT_SOCKET_PATH}`, { 'service-api-key': await deviceKey(h, worker) })));
  device.send(JSON.stringify({ worker_id: worker, readings }));
  return JSON.parse((await device.next()).text);
}

/** The worker makes themself available with their device credential (spec 4.7). */
async function available(worker: string) {
  await makeAvailable(h, worker);
  await h.clock.advance(1000); // readings after the worker became available
}

/** The page's calls of the platform's HTTP API under /v1/allocation (the supply map must make none: it is pushed). */
function allocationReads(): string[] {
  const seen: string[] = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith('/v1/allocation/')) seen.push(`${r.method()} ${u.pathname}`);
  });
  return seen;
}

async function signIn(email: string, password: string) {
  await page.goto(`${h.url}/console`);
  await page.fill('input[name=email]', email);
  await page.fill('input[name=password]', password);
  await page.click('#sign-in button[type=submit]');
  await page.waitForSelector('#app:not([hidden])', { timeout: WAIT });
}

async function signOut() {
  await page.click('#sign-out');
  await page.waitForSelector('#sign-in-view:not([hidden])', { timeout: WAIT });
}


describe.skipIf(!run)('operator console in headless Chromium', { timeout: 90_000 }, () => {
  beforeAll(async () => {
    h = await startHarness({ config: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    kit = dispatchKit(h);
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('pageerror', (e) => console.error('[console page error]', e.message));
    page.on('console', (m) => m.type() === 'error' && console.error('[console page]', m.text()));
    receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end('ok')));
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  }, 60_000);

  afterAll(async () => {
    for (const d of devices.values()) d.close();
    await browser?.close();
    if (receiver) await new Promise((r) => receiver.close(r));
    await h?.close();
  });

  it('the console is served by the platform at /console without a credential, with its map library from node_modules', async () => {
    for (const path of ['/console', '/console/console.js', '/console/maplibre-gl.mjs', '/console/maplibre-gl-worker.mjs', '/console/h3-js.es.js']) {
      const r = await fetch(h.url + path);
      expect(r.status, path).toBe(200);
      expect(r.headers.get('content-type'), path).toMatch(path === '/console' ? /text\/html/ : /javascript/);
    }
    expect((await fetch(`${h.url}/console/..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${h.url}/console/not-a-file.js`)).status).toBe(404);
  });

  it('sign-in: a wrong password is refused with the API\'s message; a person signs in with POST /v1/sessions and the console makes its key from the session, recording the person', async () => {
    await page.goto(`${h.url}/console`);
    await page.fill('input[name=email]', h.registration.email);
    await page.fill('input[name=password]', 'not the right passphrase');
    await page.click('#sign-in button[type=submit]');
    await expect.poll(() => page.textContent('#sign-in [data-role=error]'), { timeout: WAIT }).toContain('The email or password is not correct.');
    await signIn(h.registration.email, h.registration.password);
    expect(await page.textContent('[data-testid=who]')).toContain(h.registration.email);
    const me = await h.request('GET', '/v1/me', { key: null, session: h.session });
    const made = me.body.api_keys.find((k: { name: string; revoked_at: string | null }) => k.name.startsWith('operator console') && !k.revoked_at);
    expect(made, JSON.stringify(me.body.api_keys)).toBeDefined();
    // the console's key ends with the session it was made from (docs/gaps.md#accounts)
    expect(made.expires_at).toEqual(expect.any(String));
  });

  it('supply map: workers appear as H3 cells coloured by availability and presence while a device sends heartbeats over the WebSocket, without a reload', async () => {
    const moving = `console_w_${process.pid}_1`;
    const resting = `console_w_${process.pid}_2`;
    await available(moving);
    await available(resting);
    await page.waitForSelector('#map[data-map-state=ready]', { timeout: WAIT });
    await page.waitForSelector('[data-testid=live-status][data-state=live]', { timeout: WAIT });
    const loads: string[] = [];
    page.on('load', () => loads.push(page.url()));
    const reads = allocationReads();

    const r1 = await beat(moving, [reading(h.clock.now() - 500, LAGOS.latitude, LAGOS.longitude)]);
    expect(r1.accepted_count, JSON.stringify(r1)).toBe(1);
    await beat(resting, [reading(h.clock.now() - 400, 6.45, 3.40)]);
    const first = latLngToCell(LAGOS.latitude, LAGOS.longitude, 9);
    await page.waitForSelector(`tr[data-worker="${moving}"][data-category=available]`, { timeout: WAIT });
    await expect.poll(() => page.textContent(`tr[data-worker="${moving}"]`), { timeout: WAIT }).toContain(first);
    await expect.poll(async () => Number(await page.getAttribute('#map', 'data-cells')), { timeout: WAIT }).toBeGreaterThanOrEqual(2);

    // the device moves 2 km east: the page follows without a reload
    await h.clock.advance(60_000);
    const r2 = await beat(moving, [reading(h.clock.now() - 500, LAGOS.latitude, LAGOS.longitude + 0.018)]);
    expect(r2.accepted_count, JSON.stringify(r2)).toBe(1);
    const second = latLngToCell(LAGOS.latitude, LAGOS.longitude + 0.018, 9);
    expect(second).not.toBe(first);
    await expect.poll(() => page.textContent(`tr[data-worker="${moving}"]`), { timeout: WAIT }).toContain(second);

    // the other worker goes unavailable: its colour changes
    const off = await setAvailability(h, resting, 'unavailable');
    expect(off.status, off.text).toBe(200);
    await page.waitForSelector(`tr[data-worker="${resting}"][data-category=unavailable]`, { timeout: WAIT });
    expect(loads).toEqual([]);
    // every change reached the page over its WebSocket: it read nothing of allocation over HTTP
    expect(reads).toEqual([]);
    expect(await page.textContent('[data-testid=live-status]')).toContain('WebSocket');
    expect(await page.textContent('[data-testid=work-orders]')).toMatch(/work order/i);
    await page.screenshot({ path: join(OUTPUT, 'supply-map.png') });
  });

  it('supply map: an open work order appears with its geofence and cascade state (counts and offers), a supply gap with its reason, pushed over the WebSocket', async () => {
    // eligible workers (live passport, current engagement) near a point inside the map's view
    const P: Point = { latitude: 6.56, longitude: 3.36 };
    const a = await kit.worker(P, 200);
    const b = await kit.worker(P, 600);
    const wo = await kit.open(P, { location: { ...P, radius_metres: 800 }, search_radius_metres: 3000, headcount: 1, cascade_width: 1 });
    expect(wo.status).toBe('open');
    let offers = await kit.offers(wo.id);
    expect(offers.map((o) => o.worker_id)).toEqual([a.worker]);
    const declined = await kit.post(`/v1/allocation/offers/${offers[0]!.id}/decline`, { reason: 'too far' });
    expect(declined.status, declined.text).toBe(200);
    offers = await kit.offers(wo.id);
    expect(offers.map((o) => [o.worker_id, o.status])).toEqual([[b.worker, 'pending'], [a.worker, 'declined']]);
    // nobody eligible near this one: closed unfilled at once, a supply gap
    const Q: Point = { latitude: 6.58, longitude: 3.31 };
    const gap = await kit.open(Q, { location: { ...Q, radius_metres: 1000 }, search_radius_metres: 2000 });
    expect(gap).toMatchObject({ status: 'unfilled', supply_gap: { reason: 'no_eligible_supply' } });

    await page.click('nav button[data-tab=supply]');
    const reads = allocationReads();
    const card = `[data-work-order="${wo.id}"]`;
    await page.waitForSelector(card, { timeout: WAIT });
    expect(await page.getAttribute(card, 'data-geofence-radius')).toBe('800');
    await expect.poll(() => page.textContent(`${card} [data-cascade=declined]`), { timeout: WAIT }).toBe('declined 1');
    expect(await page.textContent(`${card} [data-cascade=offered]`)).toBe('offered 2');
    expect(await page.textContent(`${card} [data-cascade=pending]`)).toBe('pending 1');
    expect(await page.getAttribute(`${card} tr[data-offer="${offers[0]!.id}"]`, 'data-status')).toBe('pending');
    expect(await page.getAttribute(`${card} tr[data-offer="${offers[1]!.id}"]`, 'data-status')).toBe('declined');
    expect(await page.textContent(`${card} tr[data-offer="${offers[1]!.id}"]`)).toContain('too far');
    const gapCard = `[data-supply-gap="${gap.id}"]`;
    await page.waitForSelector(`${gapCard}[data-reason=no_eligible_supply]`, { timeout: WAIT });
    expect(await page.textContent(`${gapCard} [data-field=reason]`)).toBe('no_eligible_supply');
    const drawn = (await page.getAttribute('#map', 'data-geofence-ids'))!.split(' ');
    expect(drawn).toEqual(expect.arrayContaining([wo.id, gap.id]));
    await page.locator(gapCard).scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(OUTPUT, 'supply-map-work-orders.png') });

    // the last candidate declines: the page follows the work order into the supply gaps, without a reload
    expect((await kit.post(`/v1/allocation/offers/${offers[0]!.id}/decline`)).status).toBe(200);
    await page.waitForSelector(`[data-supply-gap="${wo.id}"][data-reason=every_offer_declined_or_expired]`, { timeout: WAIT });
    await expect.poll(() => page.locator(card).count(), { timeout: WAIT }).toBe(0);
    expect(reads).toEqual([]);
  });

  it('queues: an open integrity flag is adjudicated from the page (outcome, reason, accepted signals); an empty reason is refused with the API\'s message', async () => {
    const worker = `console_w_${process.pid}_3`;
    await available(worker);
    await beat(worker, [reading(h.clock.now() - 500, LAGOS.latitude, LAGOS.longitude)]);
    await beat(worker, [reading(h.clock.now() - 100, LAGOS.latitude, LAGOS.longitude, { mock_location_detected: true })]);
    await h.platform.system.settle();
    const open = (await h.request('GET', `/v1/allocation/integrity_flags?worker_id=${worker}&status=open`)).body.data;
    expect(open).toHaveLength(1);
    const flag = open[0];

    await page.click('nav button[data-tab=queues]');
    const card = `[data-flag="${flag.id}"]`;
    await page.waitForSelector(card, { timeout: WAIT });
    expect(await page.textContent(card)).toContain('mock_location');
    await page.click(`${card} button[type=submit]`);
    await expect.poll(() => page.textContent(`${card} [data-role=result]`), { timeout: WAIT }).toMatch(/reason/i);
    expect(await page.getAttribute(`${card} [data-role=result]`, 'class')).toBe('error');
    expect((await h.request('GET', `/v1/allocation/integrity_flags/${flag.id}`)).body.status).toBe('open');

    await page.selectOption(`${card} select[name=outcome]`, 'upheld');
    await page.fill(`${card} input[name=reason]`, 'Mock location confirmed with the worker by phone.');
    await page.check(`${card} input[value=mock_location]`);
    await page.screenshot({ path: join(OUTPUT, 'queues-flag.png') });
    await page.click(`${card} button[type=submit]`);
    await expect.poll(() => page.textContent(`${card} [data-role=result]`), { timeout: WAIT }).toContain('Recorded: upheld');
    const decided = (await h.request('GET', `/v1/allocation/integrity_flags/${flag.id}`)).body;
    expect(decided.status).toBe('upheld');
    expect(decided.decision).toMatchObject({ reason: 'Mock location confirmed with the worker by phone.', accepted_signals: ['mock_location'] });
  });

  it('queues: an open exception (start passcode without a geofence entry) is adjudicated from the page with its conflicting signals; what the API refuses is refused with the API\'s message', async () => {
    const p: Point = { latitude: 6.47, longitude: 3.46 };
    const w = await kit.worker(p, 400);
    const wo = await kit.open(p, { location: { ...p, radius_metres: 100 }, search_radius_metres: 5000 });
    const [offer] = await kit.offers(wo.id);
    expect(offer?.worker_id).toBe(w.worker);
    expect((await kit.post(`/v1/allocation/offers/${offer!.id}/accept`)).status).toBe(200);
    const made = await kit.post('/v1/allocation/assignments', { offer_id: offer!.id });
    expect(made.status, made.text).toBe(201);
    const arrived = await kit.post(`/v1/allocation/assignments/${made.body.id}/arrive`, { passcode: made.body.passcodes.start });
    expect(arrived.body).toMatchObject({ status: 'exception' });
    const exceptionId = arrived.body.exception_id as string;

    await page.click('nav button[data-tab=queues]');
    await page.click('[data-action=refresh-queues]');
    const card = `[data-exception="${exceptionId}"]`;
    await page.waitForSelector(card, { timeout: WAIT });
    expect(await page.textContent(card)).toContain('start_passcode_without_geofence_entry');
    expect(await page.locator(`${card} [data-copy="${made.body.id}"]`).count()).toBe(1);

    // no reason: the API refuses (400) and the page shows its message; nothing is recorded
    const refusal = await h.request('POST', `/v1/allocation/exceptions/${exceptionId}/adjudicate`, { idempotencyKey: idem(), body: { outcome: 'dismissed', reason: '' } });
    expect(refusal.status).toBe(400);
    await page.click(`${card} button[type=submit]`);
    await expect.poll(() => page.textContent(`${card} [data-role=result]`), { timeout: WAIT }).toContain(refusal.body.error.message);
    expect(await page.getAttribute(`${card} [data-role=result]`, 'class')).toBe('error');
    expect((await h.request('GET', `/v1/allocation/exceptions/${exceptionId}`)).body.status).toBe('open');

    await page.selectOption(`${card} select[name=outcome]`, 'dismissed');
    await page.fill(`${card} input[name=reason]`, 'The worker never reached the site; the passcode was read out by phone.');
    await page.check(`${card} input[value=start_passcode_without_geofence_entry]`);
    await page.screenshot({ path: join(OUTPUT, 'queues-exception.png') });
    await page.click(`${card} button[type=submit]`);
    await expect.poll(() => page.textContent(`${card} [data-role=result]`), { timeout: WAIT }).toContain('Recorded: dismissed');
    const decided = (await h.request('GET', `/v1/allocation/exceptions/${exceptionId}`)).body;
    expect(decided).toMatchObject({ status: 'dismissed', decision: { outcome: 'dismissed', reason: 'The worker never reached the site; the passcode was read out by phone.', accepted_signals: ['start_passcode_without_geofence_entry'] } });
    expect((await h.request('GET', `/v1/allocation/assignments/${made.body.id}`)).body.status).toBe('closed');
    await page.screenshot({ path: join(OUTPUT, 'queues-exception-decided.png') });

    // decided: the row keeps the API's answer and offers no second decision; the API refuses one (409)
    const again = await h.request('POST', `/v1/allocation/exceptions/${exceptionId}/adjudicate`, { idempotencyKey: idem(), body: { outcome: 'upheld', reason: 'again' } });
    expect(again.status).toBe(409);
    await page.waitForSelector(`${card}[data-decided]`, { timeout: WAIT });
    expect(await page.locator(`${card} button[type=submit]`).count()).toBe(0);
    expect(await page.textContent(`${card} [data-role=result]`)).toContain('Recorded: dismissed');
    expect((await h.request('GET', `/v1/allocation/exceptions/${exceptionId}`)).body.status).toBe('dismissed');
    await page.click('[data-action=refresh-queues]');
    await expect.poll(() => page.locator(card).count(), { timeout: WAIT }).toBe(0);
  });

  it('queues: the preparer\'s approval of a run above the maker-checker threshold is refused with the API\'s message; a second person the preparer invites from the console joins with the token and approves it', async () => {
    await importPayees(h, h.key, [{ payee_ref: 'emp-c1', monthly_basic: 40_000_000, monthly_housing: 10_000_000, monthly_transport: 5_000_000, monthly_other_allowances: 0, state_of_residence: 'NG-LA', nhf_contributing: true }], { headcount: 12, turnover_50m_or_more: false, maker_checker_threshold: 100 });
    const prepared = await calculatedRun(h, h.key, '2026-03');
    expect((await post(h, h.key, `/v1/payroll/runs/${prepared.id}/submit`)).status).toBe(200);

    await page.click('[data-action=refresh-queues]');
    const card = `[data-run="${prepared.id}"]`;
    await page.waitForSelector(card, { timeout: WAIT });
    expect(await page.textContent(`${card} [data-total=gross]`)).toMatch(/NGN 550,000\.00/);
    await page.screenshot({ path: join(OUTPUT, 'queues-run.png') });
    await page.click(`${card} button[data-op=approve]`);
    await expect.poll(() => page.textContent(`${card} [data-role=result]`), { timeout: WAIT }).toMatch(/maker-checker/);
    expect((await h.request('GET', `/v1/payroll/runs/${prepared.id}`)).body.status).toBe('pending_approval');

    // the preparer invites a second person (POST /v1/invitations) and passes on the token shown once
    const checker = { email: `checker.${process.pid}@example.ng`, password: 'amber-lagoon-42-ferry' };
    await page.click('nav button[data-tab=people]');
    await page.fill('#invite input[name=email]', checker.email);
    await page.fill('#invite input[name=name]', 'Bisi Checker');
    await page.click('#invite button[type=submit]');
    const token = (await (await page.waitForSelector('#invite [data-role=token]', { timeout: WAIT })).textContent())!;
    expect(token).toMatch(/^invt_/);
    await page.waitForSelector('#invitations tr[data-status=pending]', { timeout: WAIT });
    await page.screenshot({ path: join(OUTPUT, 'people-invited.png') });
    await signOut();
    // what the preparer was shown leaves with them: the next person acts only on cards rendered for them
    expect(await page.$(card)).toBeNull();
    // the checker joins from the sign-in page with the token and a password of their own
    await page.fill('#accept-invitation input[name=token]', token);
    await page.fill('#accept-invitation input[name=password]', checker.password);
    await page.click('#accept-invitation button[type=submit]');
    await page.waitForSelector('#app:not([hidden])', { timeout: WAIT });
    expect(await page.textContent('[data-testid=who]')).toContain(checker.email);
    const invitations = (await h.request('GET', '/v1/invitations')).body.data;
    expect(invitations.find((i: { email: string }) => i.email === checker.email)).toMatchObject({ status: 'accepted' });
    await page.click('nav button[data-tab=queues]');
    await page.waitForSelector(card, { timeout: WAIT });
    await page.click(`${card} button[data-op=approve]`);
    await expect.poll(() => page.textContent(`${card} [data-role=result]`), { timeout: WAIT }).toContain('Approved by');
    await page.screenshot({ path: join(OUTPUT, 'queues-approved.png') });
    const approved = (await h.request('GET', `/v1/payroll/runs/${prepared.id}`)).body;
    expect(approved.status).toBe('approved');
    expect(approved.approved_by).not.toBe(approved.prepared_by);
  });

  it('deliveries: endpoints and recent deliveries are listed with their attempts, and a delivered one is replayed from the page', async () => {
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const ep = await h.request('POST', '/v1/webhook_endpoints', { idempotencyKey: idem(), body: { url } });
    expect(ep.status, ep.text).toBeLessThan(300);
    const sent = await h.request('POST', `/v1/webhook_endpoints/${ep.body.id}/test`, { idempotencyKey: idem(), body: {} });
    expect(sent.status, sent.text).toBeLessThan(300);
    await expect.poll(async () => (await h.request('GET', `/v1/webhook_deliveries/${sent.body.id}`)).body.delivered_at, { timeout: WAIT }).not.toBeNull();

    await page.click('nav button[data-tab=deliveries]');
    const row = `tr[data-delivery="${sent.body.id}"]`;
    await page.waitForSelector(row, { timeout: WAIT });
    expect(await page.textContent(`${row} [data-field=attempts]`)).toBe('1');
    await page.click(`${row} button[data-replay]`);
    await expect.poll(() => page.textContent(`${row} [data-role=result]`), { timeout: WAIT }).toContain('Replayed');
    await page.screenshot({ path: join(OUTPUT, 'deliveries.png') });
    await expect.poll(async () => (await h.request('GET', `/v1/webhook_deliveries/${sent.body.id}`)).body.attempts, { timeout: WAIT }).toBe(2);
  });

  it('sign-in leaves no key behind: the key the console made ends with its session, and the session\'s end signs the page out (docs/gaps.md#accounts)', async () => {
    const creds = JSON.parse((await page.evaluate(() => sessionStorage.getItem('console.credentials'))) ?? 'null') as { key: string; key_id: string; session: string; expires_at: string } | null;
    expect(creds?.key).toMatch(/^sk_test_/);
    expect((await h.request('GET', '/v1/api_keys?limit=1', { key: creds!.key })).status).toBe(200);
    const me = await h.request('GET', '/v1/me', { key: null, session: creds!.session });
    expect(me.body.api_keys.find((k: { id: string }) => k.id === creds!.key_id)).toMatchObject({ expires_at: creds!.expires_at, revoked_at: null });
    await h.clock.advance(Date.parse(creds!.expires_at) - h.clock.now() + 1_000);
    const after = await h.request('GET', '/v1/api_keys?limit=1', { key: creds!.key });
    expect(after.status).toBe(401);
    expect(after.body.error).toMatchObject({ code: 'unauthenticated', message: expect.stringMatching(/expired/) });
    // the page's next call is refused, and it signs the person out
    await page.click('nav button[data-tab=deliveries]');
    await page.waitForSelector('#sign-in-view:not([hidden])', { timeout: WAIT });
    expect(await page.textContent('#sign-in [data-role=error]')).toContain('Your session ended');
    expect(await page.evaluate(() => sessionStorage.getItem('console.credentials'))).toBeNull();
  });
});

describe.runIf(!haveChromium && mustHaveChromium)('operator console under CI', () => {
  it('Chromium is installed for the browser tests (CI=true)', () => {
    expect(haveChromium, 'no Chromium: .ci/run installs Debian\'s chromium').toBe(true);
  });
});
