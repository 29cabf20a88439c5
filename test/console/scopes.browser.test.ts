/**
 * What the console offers follows the scopes its credential carries (spec 5.6: module:action; a key
 * may carry fewer scopes than its issuer; docs/gaps.md#console "Scopes"): a person signing in for
 * run:read and run:approve is offered the payroll runs and Approve, and nothing that needs another
 * scope (no map, no queues of allocation, no reject or execute, no deliveries, no people); signed
 * in with every scope they hold, the page offers them all. The scopes shown are the API's answer.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../support/http.ts';
import { calculatedRun, importPayees, post, type PayeeRow } from '../payroll/support.ts';
import { haveChromium, launch, mustHaveChromium, OUTPUT } from './browser.ts';

const run = haveChromium || mustHaveChromium;
const WAIT = 20_000;

let h: Harness;
let browser: Browser;
let page: Page;
const runs: Record<string, string> = {};
const card = (period: string) => `[data-run="${runs[period]}"]`;
const payee: PayeeRow = { payee_ref: 'emp-s', monthly_basic: 40_000_000, monthly_housing: 10_000_000, monthly_transport: 5_000_000, monthly_other_allowances: 0, state_of_residence: 'NG-LA', nhf_contributing: true };

async function signIn(scopes: string) {
  await page.goto(`${h.url}/console`);
  await page.fill('input[name=email]', h.registration.email);
  await page.fill('input[name=password]', h.registration.password);
  await page.fill('input[name=scopes]', scopes);
  await page.click('#sign-in button[type=submit]');
  await page.waitForSelector('#app:not([hidden])', { timeout: WAIT });
}

const visible = (selector: string) => page.isVisible(selector);

describe.skipIf(!run)('the console offers what its scopes allow', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    h = await startHarness();
    // one person prepares and approves below the maker-checker threshold: January approved, February pending
    await importPayees(h, h.key, [payee], { headcount: 12, turnover_50m_or_more: false, maker_checker_threshold: 10_000_000_000 });
    for (const p of ['2026-01', '2026-02']) {
      runs[p] = (await calculatedRun(h, h.key, p)).id;
      expect((await post(h, h.key, `/v1/payroll/runs/${runs[p]}/submit`)).status).toBe(200);
    }
    expect((await post(h, h.key, `/v1/payroll/runs/${runs['2026-01']}/approve`)).status).toBe(200);
    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('pageerror', (e) => console.error('[console page error]', e.message));
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('signed in for run:read and run:approve: the runs and Approve are offered, nothing needing another scope is', async () => {
    await signIn('run:read, run:approve');
    const keys = (await h.request('GET', '/v1/api_keys?limit=100')).body.data as { name: string; scopes: string[]; revoked_at: string | null }[];
    const consoleKey = keys.find((k) => k.name.startsWith('operator console') && !k.revoked_at)!;
    expect([...consoleKey.scopes].sort()).toEqual(['run:approve', 'run:read']);
    expect(await page.getAttribute('#who', 'data-scopes')).toBe(consoleKey.scopes.join(' '));

    await page.waitForSelector(`${card('2026-02')} button[data-op=approve]`, { timeout: WAIT });
    expect(await visible('#tab-queues')).toBe(true);
    for (const tab of ['supply', 'deliveries', 'people']) expect(await visible(`nav button[data-tab=${tab}]`), tab).toBe(false);
    expect(await visible('#flags')).toBe(false);
    expect(await visible('#exceptions')).toBe(false);
    expect(await visible(`${card('2026-02')} button[data-op=approve]`)).toBe(true);
    expect(await visible(`${card('2026-02')} button[data-op=reject]`)).toBe(false);
    expect(await visible(`${card('2026-02')} input[name=reason]`)).toBe(false);
    expect(await visible(`${card('2026-01')} button[data-op=execute]`)).toBe(false);
    // people are read with iam:read, which this key lacks; the person's own name is known from their session
    expect(await page.textContent(`${card('2026-01')} [data-field=prepared_by]`)).toBe(h.registration.body.account.name);
    await page.screenshot({ path: join(OUTPUT, 'scopes-approver-only.png') });

    // what is offered works: February approved (out of order, January not executed yet)
    await page.check(`${card('2026-02')} input[name=out_of_order]`);
    await page.click(`${card('2026-02')} button[data-op=approve]`);
    await expect.poll(async () => (await h.request('GET', `/v1/payroll/runs/${runs['2026-02']}`)).body.status, { timeout: WAIT }).toBe('approved');
    await page.click('#sign-out');
    await page.waitForSelector('#sign-in-view:not([hidden])', { timeout: WAIT });
  });

  it('signed in with every scope the person holds: the map, the queues, execute and reject, deliveries and people are offered', async () => {
    await signIn('');
    await page.waitForSelector('#map', { state: 'visible', timeout: WAIT });
    for (const tab of ['supply', 'queues', 'deliveries', 'people']) expect(await visible(`nav button[data-tab=${tab}]`), tab).toBe(true);
    expect((await page.getAttribute('#who', 'data-scopes'))!.split(' ')).toEqual(expect.arrayContaining(['match:write', 'run:write', 'run:approve', 'delivery:write', 'iam:write']));
    expect(await visible('#open-work-order')).toBe(false); // offered on a click of the map
    await page.click('nav button[data-tab=queues]');
    await page.waitForSelector(`${card('2026-01')} button[data-op=execute]`, { state: 'visible', timeout: WAIT });
    expect(await visible('#flags form.bulk')).toBe(true);
    await page.click('nav button[data-tab=people]');
    expect(await visible('#invite')).toBe(true);
  });
});
