/**
 * Remittance authorities and the statutory calendar as versioned data (spec 2.10, 4.9;
 * ../shared/reference/ng-payouts-remittance.md section 2; ng-payroll-2026.md section 8).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorityIdFor } from '../../actors/payroll/index.ts';
import { isValidNuban } from '../../actors/payouts/index.ts';
import { AUTHORITIES, authorities, authorityById, payeAuthorityFor, pensionAdministrator } from '../../actors/remittance/index.ts';
import { dueDateOf, loadAuthorities } from '../../actors/remittance/authorities/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

const STATES = ['NG-AB', 'NG-AD', 'NG-AK', 'NG-AN', 'NG-BA', 'NG-BY', 'NG-BE', 'NG-BO', 'NG-CR', 'NG-DE', 'NG-EB', 'NG-ED', 'NG-EK', 'NG-EN', 'NG-GO', 'NG-IM', 'NG-JI', 'NG-KD', 'NG-KN', 'NG-KT', 'NG-KE', 'NG-KO', 'NG-KW', 'NG-LA', 'NG-NA', 'NG-NI', 'NG-OG', 'NG-ON', 'NG-OS', 'NG-OY', 'NG-PL', 'NG-RI', 'NG-SO', 'NG-TA', 'NG-YO', 'NG-ZA', 'NG-FC'];

describe('authorities (spec 2.10, 4.9; reference ng-payouts-remittance.md 2)', () => {
  it('every State IRS and the FCT-IRS is an authority, named officially, with the PAYE authority id payroll already derives', () => {
    expect(authorities('state_irs')).toHaveLength(37);
    for (const s of STATES) {
      const a = payeAuthorityFor(s)!;
      expect(a, s).toBeDefined();
      expect(a.id).toBe(authorityIdFor(s));
      expect(a.id.startsWith('remit_authority_rail_obligation_')).toBe(true);
      expect(a.jurisdiction).toBe(s);
      expect(a.name).toMatch(/(State|Federal Capital Territory) (Internal Revenue Service|Board of Internal Revenue)/);
      expect(a.name).not.toMatch(/Tax authority of/);
    }
    expect(payeAuthorityFor('NG-LA')!.name).toBe('Lagos State Internal Revenue Service');
    expect(payeAuthorityFor('NG-FC')!.name).toBe('Federal Capital Territory Internal Revenue Service (FCT-IRS)');
    expect(payeAuthorityFor('NG-XX')).toBeUndefined();
  });

  it('PFAs name their custodian; PFCs, FMBN, NSITF, ITF and NHIA are there; every collection account passes its NUBAN check digit', () => {
    expect(authorities('pension_administrator').length).toBeGreaterThanOrEqual(19);
    expect(authorities('pension_custodian')).toHaveLength(3);
    for (const k of ['nhf', 'nsitf', 'itf', 'nhia'] as const) expect(authorities(k)).toHaveLength(1);
    expect(authorities('nhf')[0].name).toBe('Federal Mortgage Bank of Nigeria');
    for (const a of authorities()) {
      expect(isValidNuban(a.collection_account.bank_code, a.collection_account.account_number), a.code).toBe(true);
      expect(authorityById(a.id)).toBe(a);
    }
    const pfa = pensionAdministrator('pfa_stanbic_ibtc')!;
    expect(pfa.name).toBe('Stanbic IBTC Pension Managers Ltd');
    expect(pensionAdministrator('STANBIC IBTC PENSION MANAGERS LTD')).toBe(pfa);
    const custodian = authorityById(pfa.custodian_id!)!;
    expect(custodian.kind).toBe('pension_custodian');
    expect(pfa.collection_account).toEqual(custodian.collection_account);
    expect(new Set(authorities().map((a) => a.id)).size).toBe(authorities().length);
  });

  it('the data set is versioned with a sha256 content hash, and a data set with a bad check digit refuses to load', () => {
    expect(AUTHORITIES.version).toMatch(/^\d{4}\.\d{2}\.\d+$/);
    expect(AUTHORITIES.content_hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const doc = JSON.parse(readFileSync(new URL('../../actors/remittance/authorities/data/ng-remittance-authorities-2026.11.1.json', import.meta.url), 'utf8'));
    expect(loadAuthorities(doc).content_hash).toBe(AUTHORITIES.content_hash);
    const acct = doc.authorities[0].collection_account;
    acct.account_number = acct.account_number.slice(0, 9) + String((Number(acct.account_number[9]) + 1) % 10);
    expect(() => loadAuthorities(doc)).toThrow(/NUBAN/);
  });

  it('GET /v1/remittance/authorities lists them, filter kind, pages of at most 100; GET by id; an unknown id is 404', async () => {
    const all: any[] = [];
    let after: string | undefined;
    for (;;) {
      const r = await h.request('GET', `/v1/remittance/authorities?limit=100${after ? `&starting_after=${after}` : ''}`);
      expect(r.status, r.text).toBe(200);
      all.push(...r.body.data);
      if (!r.body.has_more) break;
      after = r.body.data[r.body.data.length - 1].id;
    }
    expect(all).toHaveLength(authorities().length);
    const pfas = await h.request('GET', '/v1/remittance/authorities?kind=pension_administrator&limit=100');
    expect(pfas.body.data.length).toBe(authorities('pension_administrator').length);
    expect(pfas.body.data.every((a: any) => a.kind === 'pension_administrator' && a.object === 'remittance_authority')).toBe(true);
    const lagos = await h.request('GET', `/v1/remittance/authorities/${authorityIdFor('NG-LA')}`);
    expect(lagos.status).toBe(200);
    expect(lagos.body).toMatchObject({ object: 'remittance_authority', livemode: false, kind: 'state_irs', jurisdiction: 'NG-LA', name: 'Lagos State Internal Revenue Service', levies: ['paye'] });
    expect(isValidNuban(lagos.body.collection_account.bank_code, lagos.body.collection_account.account_number)).toBe(true);
    expect((await h.request('GET', '/v1/remittance/authorities/remit_authority_rail_obligation_nope')).status).toBe(404);
    expect((await h.request('GET', '/v1/remittance/authorities?kind=bank')).status).toBe(400);
  });
});

describe('the statutory calendar as data (reference ng-payroll-2026.md 8)', () => {
  it('pension is due 7 working days after the pay date, public holidays skipped (Good Friday and Easter Monday 2026)', () => {
    expect(dueDateOf('pension', '2026-01-28').due_date).toBe('2026-02-06');
    const easter = dueDateOf('pension', '2026-03-27');
    expect(easter.due_date).toBe('2026-04-09');
    expect(easter.holidays_skipped.map((x) => x.date)).toEqual(['2026-04-03', '2026-04-06']);
    expect(dueDateOf('pension', '2026-12-23').due_date).toBe('2027-01-06');
  });

  it('PAYE the 10th of the next month; NHF the same day next month, clamped; ITF 1 April after the tax year; NSITF and NHIA unconfirmed (null)', () => {
    expect(dueDateOf('paye', '2026-12-23').due_date).toBe('2027-01-10');
    expect(dueDateOf('nhf', '2026-01-31').due_date).toBe('2026-02-28');
    expect(dueDateOf('itf', '2026-07-28').due_date).toBe('2027-04-01');
    expect(dueDateOf('nsitf', '2026-07-28').due_date).toBeNull();
    expect(dueDateOf('nhia', '2026-07-28').due_date).toBeNull();
  });

  it('GET /v1/remittance/calendar_entries lists a pay date\'s entries; each reads back by id', async () => {
    const r = await h.request('GET', '/v1/remittance/calendar_entries?period=2026-03&pay_date=2026-03-27');
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.map((e: any) => e.levy)).toEqual(['paye', 'pension', 'nhf', 'nsitf', 'itf', 'nhia']);
    const pension = r.body.data[1];
    expect(pension).toMatchObject({ object: 'remittance_calendar_entry', due_date: '2026-04-09', rule: 'working_days_after_pay_date' });
    const back = await h.request('GET', `/v1/remittance/calendar_entries/${pension.id}`);
    expect(back.status).toBe(200);
    expect(back.body).toEqual(pension);
    expect((await h.request('GET', '/v1/remittance/calendar_entries/remit_authority_rail_calendar_entry_paye202613d20260101')).status).toBe(404);
  });
});
