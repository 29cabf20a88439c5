/**
 * The remittance operations the routes call (spec 3 "Remittance instruction set", 4.9, 8):
 * - create: from an accepted instruction set only, one leg per authority (plan-legs.ts);
 * - approve: maker-checker as a payroll run's: the organisation's threshold, and the person behind
 *   the approving credential compared with the person who prepared it (never the credential);
 * - execute: the remittance moves to executing, then each leg is made (and starts paying on its
 *   own) with its monthly schedule; executing again makes any leg or schedule still missing.
 */
import { type Caller, conflict, type Platform } from '../../../kernel/index.ts';
import { personBehind } from '../../accounts/index.ts';
import { employerSettings } from '../../payroll/index.ts';
import { legIdOf, remittanceIdOf, scheduleIdOf } from './ids.ts';
import { Leg } from './leg.ts';
import { planLegs } from './plan-legs.ts';
import { Remittance } from './remittance.ts';
import { Return } from './return.ts';
import { monthlySchedule, runPayslips } from './schedules.ts';
import { remitService } from './service.ts';
import { acceptedSet } from './sources.ts';

/** Drive interval of a leg not yet handed to payouts (its reminder asks the service again). */
const DRIVE_MS = 60_000;

export async function createRemittance(p: Platform, c: Caller & { dedupeId?: string }, body: { instruction_set_id: string }): Promise<unknown> {
  const set = await acceptedSet(p, c, body.instruction_set_id);
  if (set.status !== 'accepted') throw conflict(`Instruction set ${set.id} is ${set.status}; nothing is committed until it is accepted.`);
  const id = remittanceIdOf(c.org, set.id);
  const { legs } = planLegs(set);
  return p.system.ask(Remittance, id, 'create', {
    instruction_set_id: set.id, run_id: set.run_id, period: set.period, currency: set.instructions.totals.total.currency, livemode: c.livemode,
    total: legs.reduce((a, l) => a + l.amount, 0),
    legs: legs.map((l) => {
      const leg_id = legIdOf(id, l.authority_id);
      return { ...l, leg_id, return_id: scheduleIdOf(leg_id) };
    }),
    prepared_by: await personBehind(p, c),
  }, c);
}

export async function approveRemittance(p: Platform, c: Caller, id: string): Promise<unknown> {
  await p.system.state(Remittance, id, c.org);
  const settings = await employerSettings(p.system, c.org);
  return p.system.ask(Remittance, id, 'approve', { threshold: settings.maker_checker_threshold, person: await personBehind(p, c) }, c);
}

export async function executeRemittance(p: Platform, c: Caller, id: string): Promise<unknown> {
  await p.system.ask(Remittance, id, 'execute', {}, c);
  const r = await p.system.state(Remittance, id, c.org);
  const payslips = await runPayslips(p, c, r.run_id);
  const person = await personBehind(p, c);
  // Each leg runs on its own: one that cannot start holds back no other (spec 3).
  await Promise.all(r.legs.map(async (l) => {
    const { leg_id: _l, return_id, ...plan } = l;
    await p.system.ask(Leg, l.leg_id, 'create', {
      ...plan, remittance_id: r.id, instruction_set_id: r.instruction_set_id, run_id: r.run_id, period: r.period, currency: r.currency, livemode: r.livemode, return_id, drive_ms: DRIVE_MS,
      ask_receipt: remitService(p).autoReceipts,
    }, c);
    const leg = await p.system.state(Leg, l.leg_id, c.org);
    await p.system.ask(Return, return_id, 'prepare', monthlySchedule(leg, payslips, person), c);
  }));
  return p.system.get(Remittance, id, c.org);
}
