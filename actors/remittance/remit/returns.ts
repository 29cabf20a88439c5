/**
 * Return operations (spec 4.9 GET /v1/remittance/returns/{return_id}, POST .../approve, .../submit;
 * reference 4): approving under maker-checker (as a remittance), submitting to the authority's
 * sandbox once what it covers is receipted, and preparing the annual employer return (Form H1)
 * when December's PAYE to a State IRS is receipted.
 */
import { type Caller, conflict, type Platform } from '../../../kernel/index.ts';
import { personBehind } from '../../accounts/index.ts';
import { employerSettings } from '../../payroll/index.ts';
import { annualReturnIdOf } from './ids.ts';
import { Leg, type LegState } from './leg.ts';
import { REMIT_AUTHORITY } from './service-key.ts';
import { Receipt } from './receipt.ts';
import { Return, type ReturnState } from './return.ts';
import { annualReturn } from './schedules.ts';

export async function approveReturn(p: Platform, c: Caller, id: string): Promise<unknown> {
  await p.system.state(Return, id, c.org);
  const settings = await employerSettings(p.system, c.org);
  return p.system.ask(Return, id, 'approve', { threshold: settings.maker_checker_threshold, person: await personBehind(p, c) }, c);
}

/** What the authority receipted for the legs a return covers; refused while any is not receipted. */
async function receipted(p: Platform, c: Caller, r: ReturnState): Promise<number> {
  let sum = 0;
  for (const legId of r.leg_ids) {
    const leg = await p.system.state(Leg, legId, c.org);
    if (leg.status !== 'completed' || !leg.receipt_id) throw conflict(`Return ${r.id} covers leg ${leg.id}, which is ${leg.status}: a return is submitted once the payment it covers is receipted.`);
    const receipt = await p.system.state(Receipt, leg.receipt_id, c.org);
    sum += receipt.parsed.amount ?? 0;
  }
  return sum;
}

export async function submitReturn(p: Platform, c: Caller, id: string): Promise<unknown> {
  const r = await p.system.state(Return, id, c.org);
  if (r.status !== 'approved' && r.status !== 'rejected') return p.system.ask(Return, id, 'filed', { accepted: false, acknowledgement_no: null, reasons: [] }, c); // the actor refuses with the reason
  const authority = p.services.require(REMIT_AUTHORITY);
  const answer = authority.file({
    return_id: r.id, authority_code: r.authority_code, form: r.form, period: r.period, total: r.total,
    row_total: r.rows_available ? r.sections.reduce((a, s) => a + s.rows.reduce((b, x) => b + x.amount, 0), 0) : r.total,
    receipted_amount: await receipted(p, c, r),
  });
  return p.system.ask(Return, id, 'filed', answer, c);
}

/** Form H1 (NTAA s.14): prepared once the State IRS's December PAYE is receipted, from the year's receipted schedules. */
export async function prepareAnnualReturn(p: Platform, c: Caller, december: LegState): Promise<void> {
  const year = december.period.slice(0, 4);
  const schedules: ReturnState[] = [];
  for (let m = 1; m <= 12; m++) {
    const period = `${year}-${String(m).padStart(2, '0')}`;
    for await (const ids of p.system.eachIds(Return, c.org, `period:${period}`)) {
      for (const id of ids) {
        const s = await p.system.state(Return, id, c.org);
        if (s.form !== 'paye_monthly_schedule' || s.authority_id !== december.authority_id || s.livemode !== december.livemode) continue;
        const legs = await Promise.all(s.leg_ids.map((l) => p.system.state(Leg, l, c.org)));
        if (legs.every((l) => l.status === 'completed')) schedules.push(s);
      }
    }
  }
  const prepared = annualReturn(c.org, { id: december.authority_id, code: december.authority_code, name: december.authority_name }, year, schedules, december.livemode);
  await p.system.ask(Return, annualReturnIdOf(c.org, december.livemode, december.authority_id, year), 'prepare', prepared, c);
}
