/**
 * Payroll for approvers in the console (docs/gaps.md#console): runs in every state with their
 * history; the people who prepared and approved a run by name, never an account id; money formatted
 * once (a refusal's "kobo" shown in naira); a later period's approval held while an earlier one is
 * not executed; approve and execute; an approver's reject (the run cancelled with the reason, in its
 * history); a run's change against the previous period explained line by line. Every action is the
 * page's own call of the public API; the test checks the API's records afterwards.
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
const checker = { email: `approver.${process.pid}@example.ng`, password: 'copper-harbour-58-lantern', name: 'Bisi Approver' };
const runs: Record<string, string> = {};
/** The page's reads of the payroll event list (GET /v1/payroll/events). */
const eventReads: string[] = [];

const payee = (ref: string, basic: number): PayeeRow => ({ payee_ref: ref, monthly_basic: basic, monthly_housing: 10_000_000, monthly_transport: 5_000_000, monthly_other_allowances: 0, state_of_residence: 'NG-LA', nhf_contributing: true });
const status = async (id: string) => (await h.request('GET', `/v1/payroll/runs/${id}`)).body.status as string;
const card = (period: string) => `[data-run="${runs[period]}"]`;

async function refreshQueues() {
  await page.click('[data-action=refresh-queues]');
  await page.waitForSelector(card('2026-01'), { timeout: WAIT });
}

describe.skipIf(!run)('payroll for approvers', { timeout: 120_000 }, () => {
  beforeAll(async () => {
    h = await startHarness();
    const settings = { headcount: 12, turnover_50m_or_more: false, maker_checker_threshold: 100 };
    await importPayees(h, h.key, [payee('emp-a', 40_000_000)], settings);
    runs['2026-01'] = (await calculatedRun(h, h.key, '2026-01')).id;
    // February pays a second payee: its change against January is that payee's pay
    await importPayees(h, h.key, [payee('emp-b', 30_000_000)], settings);
    runs['2026-02'] = (await calculatedRun(h, h.key, '2026-02')).id;
    for (const p of ['2026-01', '2026-02']) expect((await post(h, h.key, `/v1/payroll/runs/${runs[p]}/submit`)).status).toBe(200);

    // the approver: a second person of the organisation, who also prepares March
    const inv = await h.request('POST', '/v1/invitations', { idempotencyKey: `pay-inv-${process.pid}`, body: { email: checker.email, name: checker.name } });
    expect(inv.status, inv.text).toBeLessThan(300);
    const joined = await h.request('POST', '/v1/invitations/accept', { key: null, body: { token: inv.body.token, password: checker.password, name: checker.name } });
    expect(joined.status, joined.text).toBeLessThan(300);
    const theirs = await h.request('POST', '/v1/account/api_keys', { key: null, session: joined.body.session.token, idempotencyKey: `pay-key-${process.pid}`, body: { name: 'approver scripts' } });
    expect(theirs.status, theirs.text).toBeLessThan(300);
    runs['2026-03'] = (await calculatedRun(h, theirs.body.key, '2026-03')).id;
    expect((await post(h, theirs.body.key, `/v1/payroll/runs/${runs['2026-03']}/submit`)).status).toBe(200);

    browser = await launch();
    page = await browser.newPage({ viewport: { width: 1400, height: 1200 } });
    page.on('pageerror', (e) => console.error('[console page error]', e.message));
    page.on('request', (r) => new URL(r.url()).pathname === '/v1/payroll/events' && eventReads.push(r.url()));
    await page.goto(`${h.url}/console`);
    await page.fill('input[name=email]', checker.email);
    await page.fill('input[name=password]', checker.password);
    await page.click('#sign-in button[type=submit]');
    await page.waitForSelector('#app:not([hidden])', { timeout: WAIT });
    await page.click('nav button[data-tab=queues]');
    await page.waitForSelector(card('2026-01'), { timeout: WAIT });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  it('runs are shown by name and money formatted once; a later period is held while an earlier one is not executed', async () => {
    const preparer = (await h.request('GET', `/v1/payroll/runs/${runs['2026-01']}`)).body.prepared_by as string;
    await expect.poll(() => page.textContent(`${card('2026-01')} [data-field=prepared_by]`), { timeout: WAIT }).toBe(h.registration.body.account.name);
    expect(await page.getAttribute(`${card('2026-01')} [data-field=prepared_by] span`, 'title')).toBe(preparer);
    expect(await page.textContent(card('2026-02'))).not.toContain(preparer);
    expect(await page.textContent(`${card('2026-02')} [data-role=order]`)).toContain('2026-01');
    await page.click(`${card('2026-02')} button[data-op=approve]`);
    await expect.poll(() => page.textContent(`${card('2026-02')} form.run-ops [data-role=result]`), { timeout: WAIT }).toContain('approve out of order');
    expect(await status(runs['2026-02']!)).toBe('pending_approval');

    // the approver prepared March: the card says so, and the maker-checker refusal names the amounts in naira only
    expect(await page.textContent(`${card('2026-03')} [data-role=role]`)).toContain('You prepared this run');
    expect(await page.locator(`${card('2026-01')} [data-role=role]`).count()).toBe(0);
    await page.click(`${card('2026-03')} input[name=out_of_order]`);
    await page.click(`${card('2026-03')} button[data-op=approve]`);
    const refusal = `${card('2026-03')} form.run-ops [data-role=result]`;
    await expect.poll(() => page.textContent(refusal), { timeout: WAIT }).toMatch(/maker-checker/);
    expect(await page.textContent(refusal)).toMatch(/NGN [\d,]+\.\d\d/);
    expect(await page.textContent(refusal)).not.toMatch(/kobo/);
    expect(await status(runs['2026-03']!)).toBe('pending_approval');
    await page.screenshot({ path: join(OUTPUT, 'payroll-order-and-refusal.png') });
  });

  it('approve and execute January by the second person; February is then approvable, and its change against January is explained line by line', async () => {
    await page.click(`${card('2026-01')} button[data-op=approve]`);
    await expect.poll(() => page.textContent(`${card('2026-01')} form.run-ops [data-role=result]`), { timeout: WAIT }).toContain(`Approved by ${checker.name}`);
    expect(await status(runs['2026-01']!)).toBe('approved');
    await page.waitForSelector(`${card('2026-01')}[data-status=approved] [data-field=approved_by]`, { timeout: WAIT });
    expect(await page.textContent(`${card('2026-01')} [data-field=approved_by]`)).toBe(checker.name);
    await page.click(`${card('2026-01')} button[data-op=execute]`);
    await expect.poll(() => status(runs['2026-01']!), { timeout: WAIT }).not.toBe('approved');
    await page.waitForSelector(`${card('2026-01')}:not([data-status=approved]):not([data-status=pending_approval])`, { timeout: WAIT });
    expect(await page.locator(`${card('2026-02')} [data-role=order]`).count()).toBe(0);

    await page.waitForSelector(`${card('2026-02')} [data-role=against]`, { timeout: WAIT });
    expect(await page.textContent(`${card('2026-02')} [data-role=against]`)).toMatch(/Against 2026-01.*gross \+NGN/);
    await page.click(`${card('2026-02')} button[data-explain]`);
    await page.waitForSelector(`${card('2026-02')} .explained[data-payee=emp-b]`, { timeout: WAIT });
    expect(await page.textContent(`${card('2026-02')} .explained[data-payee=emp-b]`)).toContain('new this period');
    expect(await page.locator(`${card('2026-02')} .explained[data-payee=emp-b] li`).count()).toBeGreaterThan(0);
    // the explanation's formulas and exact values in naira, as every figure of the page (spec 2.1 Money)
    const explained = (await page.textContent(`${card('2026-02')} .explained[data-payee=emp-b] ul`))!;
    expect(explained).toMatch(/NGN [\d,]+\.\d\d x \d+\/\d+ = NGN [\d,]+\.\d+/);
    expect(explained).not.toMatch(/\d kobo/);
    await page.screenshot({ path: join(OUTPUT, 'payroll-change-explained.png') });
  });

  it('an approver rejects February with a reason: the run is cancelled with it, and the history names who did', async () => {
    await page.click(`${card('2026-02')} button[data-op=reject]`);
    await expect.poll(() => page.textContent(`${card('2026-02')} form.run-ops [data-role=result]`), { timeout: WAIT }).toContain('Write the reason');
    expect(await status(runs['2026-02']!)).toBe('pending_approval');
    await page.fill(`${card('2026-02')} input[name=reason]`, 'emp-b starts in March, not February.');
    await page.click(`${card('2026-02')} button[data-op=reject]`);
    await expect.poll(() => status(runs['2026-02']!), { timeout: WAIT }).toBe('cancelled');
    await page.waitForSelector(`${card('2026-02')}[data-status=cancelled]`, { timeout: WAIT });
    await expect.poll(async () => {
      await page.click(`${card('2026-02')} [data-role=history] summary`);
      return page.textContent(`${card('2026-02')} [data-role=history]`);
    }, { timeout: WAIT }).toContain(`by ${checker.name}`);
    await page.screenshot({ path: join(OUTPUT, 'payroll-rejected.png') });
    // every state is listed: the filter shows only the cancelled one
    await page.selectOption('#runs select[name=status]', 'cancelled');
    await expect.poll(() => page.locator('#runs [data-run]').count(), { timeout: WAIT }).toBe(1);
    expect(await page.getAttribute('#runs [data-run]', 'data-run')).toBe(runs['2026-02']);
    await page.selectOption('#runs select[name=status]', '');
  });

  it('live (spec 6: the payroll event list read on from the last event held): a run submitted and one approved by another person show without a refresh; a reason being written survives', async () => {
    await page.fill(`${card('2026-03')} input[name=reason]`, 'still writing this');
    runs['2026-04'] = (await calculatedRun(h, h.key, '2026-04')).id;
    expect((await post(h, h.key, `/v1/payroll/runs/${runs['2026-04']}/submit`)).status).toBe(200);
    await page.waitForSelector(`${card('2026-04')}[data-status=pending_approval]`, { timeout: WAIT });
    expect(await page.inputValue(`${card('2026-03')} input[name=reason]`)).toBe('still writing this');
    // the first person approves the run the approver prepared
    expect((await post(h, h.key, `/v1/payroll/runs/${runs['2026-03']}/approve`)).status).toBe(200);
    await page.waitForSelector(`${card('2026-03')}[data-status=approved] [data-field=approved_by]`, { timeout: WAIT });
    expect(await page.textContent(`${card('2026-03')} [data-field=approved_by]`)).toBe(h.registration.body.account.name);
    await page.screenshot({ path: join(OUTPUT, 'payroll-live.png') });
    // the page started after the newest run event it found, never from the module's first event
    expect(eventReads.length).toBeGreaterThan(0);
    expect(eventReads.filter((u) => !u.includes('starting_after='))).toEqual([]);
  });
});
