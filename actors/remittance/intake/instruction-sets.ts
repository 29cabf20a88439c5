/**
 * The instruction set's operations (spec 2.10, 3 "Remittance instruction set", 4.9): submit a set
 * from outside (source external_api), read a set's totals reconciled with its run and its
 * discrepancies, override a discrepancy, accept or reject the set, and the reads the remit part
 * uses (an accepted set; a period's sets). Also the two steps that need I/O: validation gathers the
 * facts of the run the set names, then checks every line (validate.ts) between begin_validation
 * and complete_validation; an accepted set's lines become obligations (the only thing a set
 * commits, and only once accepted). The intake service (service.ts) runs them on commits and
 * reminders; every command they send is idempotent.
 */
import { ApiError, type Caller, errorEntry, idOf, listEnvelope, type MoneyValue, parseListQuery, type Platform, type ValidationEntry, validationError } from '../../../kernel/index.ts';
import { Run } from '../../payroll/index.ts';
import { addObligationLine, isDate, type Levy } from '../authorities/index.ts';
import { DISCREPANCY_PREFIX, discrepancyView, IngestedInstructionSet, SET_PREFIX, setIdOfDiscrepancy, setView, type IngestedInstructionSetView, type Receive } from './instruction-set.ts';
import { intakeService, type IntakeSteps } from './service.ts';
import { validateLines, type Lines, type RunFacts } from './validate.ts';

type MaybeNull<T> = T | null | undefined;
export interface SubmittedInstructions {
  paye: Array<{ authority_id?: MaybeNull<string>; jurisdiction: string; amount: MoneyValue; payee_count?: MaybeNull<number>; reconciliation_reference: string }>;
  pension: Array<{ administrator_id: string; administrator_name?: MaybeNull<string>; employee_amount?: MaybeNull<MoneyValue>; employer_amount?: MaybeNull<MoneyValue>; amount: MoneyValue; payee_count?: MaybeNull<number>; reconciliation_reference: string }>;
  levies: Array<{ code: Lines['levies'][number]['code']; amount: MoneyValue; reconciliation_reference: string }>;
  totals: { total: MoneyValue };
}

export interface Submission {
  period: string;
  run_id?: string | null;
  pay_date?: string;
}

function normalise(i: SubmittedInstructions): Lines {
  return {
    paye: i.paye.map((p) => ({ authority_id: p.authority_id ?? null, jurisdiction: p.jurisdiction, amount: p.amount, payee_count: p.payee_count ?? null, reconciliation_reference: p.reconciliation_reference })),
    pension: i.pension.map((p) => ({ administrator_id: p.administrator_id, administrator_name: p.administrator_name ?? null, employee_amount: p.employee_amount ?? null, employer_amount: p.employer_amount ?? null, amount: p.amount, payee_count: p.payee_count ?? null, reconciliation_reference: p.reconciliation_reference })),
    levies: i.levies.map((l) => ({ code: l.code, amount: l.amount, reconciliation_reference: l.reconciliation_reference })),
    totals: { total: i.totals.total },
  };
}

/** Refuses what cannot be validated at all (a submission with neither a run nor a pay date to count due dates from). */
export function checkSubmission(s: Submission): void {
  const entries: ValidationEntry[] = [];
  if (s.pay_date !== undefined && !isDate(s.pay_date)) entries.push(errorEntry('/pay_date', 'invalid_date', 'pay_date must be a calendar date YYYY-MM-DD.'));
  if (!s.run_id && s.pay_date === undefined) entries.push(errorEntry('/pay_date', 'pay_date_required', 'A set that names no run needs pay_date: its due dates count from it.'));
  if (entries.length) throw validationError(entries, 1);
}

/** Receives the set and validates it (joining a validation already running on this node), answering its view. */
export async function receiveAndValidate(platform: Platform, caller: Caller, id: string, r: Receive, dedupeId: string | undefined): Promise<IngestedInstructionSetView> {
  await platform.system.ask(IngestedInstructionSet, id, 'receive', r, { org: caller.org, requestId: caller.requestId, principal: caller.principal, dedupeId, noReply: true });
  await intakeService(platform).validate(caller.org, id);
  return setView(await setState(platform, caller.org, id));
}

/** POST /v1/remittance/instruction_sets: received, validated, returned pending acceptance with its report. */
export async function submitInstructionSet(platform: Platform, caller: Caller, body: Submission & { instructions: SubmittedInstructions }, id: string, dedupeId: string | undefined): Promise<IngestedInstructionSetView> {
  checkSubmission(body);
  return receiveAndValidate(platform, caller, id, { source: 'external_api', livemode: caller.livemode, period: body.period, run_id: body.run_id ?? null, pay_date: body.pay_date ?? null, import_id: null, lines: normalise(body.instructions) }, dedupeId);
}

const sum = (xs: readonly MoneyValue[]) => xs.reduce((a, x) => a + x.amount, 0);
const ngn = (amount: number): MoneyValue => ({ amount, currency: 'NGN' });

const setState = (platform: Platform, org: string, id: string) => platform.system.state(IngestedInstructionSet, id, org);

/** GET .../totals: the set's sums by section, its declared total, and (for a run) the run's figures it must equal to the minor unit. */
export async function setTotals(platform: Platform, org: string, id: string) {
  const s = await setState(platform, org, id);
  const l = s.lines;
  const lines = sum(l.paye.map((p) => p.amount)) + sum(l.pension.map((p) => p.amount)) + sum(l.levies.map((x) => x.amount));
  let run: { run_id: string; total_deductions: MoneyValue; employer_contributions: MoneyValue; total: MoneyValue } | null = null;
  if (s.run_id) {
    try {
      const r = await platform.system.state(Run, s.run_id, org);
      run = { run_id: r.id, total_deductions: ngn(r.totals.total_deductions), employer_contributions: ngn(r.totals.employer_contributions), total: ngn(r.totals.total_deductions + r.totals.employer_contributions) };
    } catch (err) {
      if (!(err instanceof ApiError) || (err.code !== 'not_found' && err.code !== 'organisation_mismatch')) throw err;
    }
  }
  const levy = (code: string) => ngn(sum(l.levies.filter((x) => x.code === code).map((x) => x.amount)));
  const declared = l.totals.total;
  return {
    object: 'instruction_set_totals' as const,
    instruction_set_id: s.id,
    livemode: s.livemode,
    mocked: false,
    paye: ngn(sum(l.paye.map((p) => p.amount))),
    pension: ngn(sum(l.pension.map((p) => p.amount))),
    pension_employee: ngn(sum(l.pension.map((p) => p.employee_amount ?? ngn(0)))),
    pension_employer: ngn(sum(l.pension.map((p) => p.employer_amount ?? ngn(0)))),
    levies: { nhf: levy('nhf'), nsitf: levy('nsitf'), itf: levy('itf'), nhia: levy('nhia') },
    lines_total: ngn(lines),
    total: declared,
    run,
    difference: run ? ngn(lines - run.total.amount) : ngn(lines - declared.amount),
    reconciles: lines === declared.amount && (run === null || lines === run.total.amount),
  };
}

/** GET .../discrepancies: in line order, paged by starting_after. */
export async function discrepanciesOf(platform: Platform, org: string, id: string, query: { limit?: number; starting_after?: string } | undefined) {
  const s = await setState(platform, org, id);
  const { limit, after } = parseListQuery(query);
  const from = after === undefined ? 0 : s.discrepancies.findIndex((d) => d.id === after) + 1;
  if (after !== undefined && from === 0) return listEnvelope([], false);
  return listEnvelope(s.discrepancies.slice(from, from + limit).map((d) => discrepancyView(s, d)), from + limit < s.discrepancies.length);
}

/** GET .../discrepancies/{discrepancy_id}: the set is read before the discrepancy id is checked, so an unknown set answers not_found first. */
export async function discrepancyOf(platform: Platform, org: string, setId: string, discrepancyId: string) {
  const s = await setState(platform, org, setId);
  const id = idOf(discrepancyId, DISCREPANCY_PREFIX, 'discrepancy');
  const d = setIdOfDiscrepancy(id) === s.id ? s.discrepancies.find((x) => x.id === id) : undefined;
  if (!d) throw new ApiError('not_found', `No discrepancy with id ${id} on instruction set ${s.id}.`);
  return discrepancyView(s, d);
}

export function overrideDiscrepancy(platform: Platform, caller: Caller & { dedupeId?: string }, setId: string, discrepancyId: string, body: { reason_code: string; note?: string | null }): Promise<unknown> {
  return platform.system.ask(IngestedInstructionSet, setId, 'override', { discrepancy_id: discrepancyId, reason_code: body.reason_code, note: body.note ?? null }, caller);
}

/** POST .../accept: the set's lines are committed, as obligations, before the answer. */
export async function acceptInstructionSet(platform: Platform, caller: Caller & { dedupeId?: string }, id: string): Promise<unknown> {
  await platform.system.ask(IngestedInstructionSet, id, 'accept', {}, caller);
  // The obligations are recorded before the answer, so a reconciliation read after it counts
  // them; the commit listener and the set's reminder do the same after a stop (idempotent).
  await recordObligations(platform, caller.org, id);
  return platform.system.get(IngestedInstructionSet, id, caller.org);
}

export function rejectInstructionSet(platform: Platform, caller: Caller & { dedupeId?: string }, id: string, reason: string | null): Promise<unknown> {
  return platform.system.ask(IngestedInstructionSet, id, 'reject', { reason }, caller);
}

/** The accepted set (spec 2.10) a remittance is made from; conflict when it is not accepted. */
export async function acceptedInstructionSet(platform: Platform, caller: Caller, id: string): Promise<IngestedInstructionSetView> {
  const s = await platform.system.state(IngestedInstructionSet, id, caller.org);
  if (s.status !== 'accepted') throw new ApiError('conflict', `Instruction set ${s.id} is ${s.status}; only an accepted set is remitted (nothing is committed until accepted).`, { reason: 'instruction_set_not_accepted' });
  return setView(s);
}

/** Every set of the caller's organisation and realm for a period, every status, as the API shows them. */
export async function instructionSetsFor(platform: Platform, caller: Caller, period: string): Promise<IngestedInstructionSetView[]> {
  const out: IngestedInstructionSetView[] = [];
  for await (const ids of platform.system.eachIds(IngestedInstructionSet, caller.org, `period:${period}`, 'asc')) {
    const states = await Promise.all(ids.map((id) => platform.system.state(IngestedInstructionSet, id, caller.org)));
    for (const s of states) if (s.livemode === caller.livemode) out.push(setView(s));
  }
  return out;
}

const SYSTEM = 'system';

/** Validates a received set: begin_validation, the run's facts, every line checked, complete_validation. */
async function validateSet(platform: Platform, org: string, id: string): Promise<void> {
  const { system } = platform;
  const opts = { org, principal: SYSTEM, lane: 'system' as const, noReply: true };
  let s = await setState(platform, org, id);
  if (s.status === 'received') {
    await system.ask(IngestedInstructionSet, id, 'begin_validation', {}, opts);
    s = await setState(platform, org, id);
  }
  if (s.status !== 'validating') return;
  const run = s.run_id ? await runFacts(platform, org, s.run_id) : null;
  const payDate = s.pay_date ?? (run?.found ? run.pay_date : null);
  // A set with no pay date has none to count due dates from: the period's last day stands in.
  const validation = validateLines(s.lines, s.period, payDate ?? lastDayOf(s.period), run);
  const livemode = s.source === 'run' && run?.found ? run.livemode : undefined;
  await system.ask(IngestedInstructionSet, id, 'complete_validation', { pay_date: payDate, livemode, validation }, opts);
}

async function runFacts(platform: Platform, org: string, runId: string): Promise<RunFacts> {
  try {
    const r = await platform.system.state(Run, runId, org);
    return { found: true, run_id: runId, status: r.status, period: r.period, pay_date: r.pay_date, livemode: r.livemode, total_deductions: r.totals.total_deductions, employer_contributions: r.totals.employer_contributions, currency: 'NGN' };
  } catch (err) {
    if (err instanceof ApiError && (err.code === 'not_found' || err.code === 'organisation_mismatch')) return { found: false, run_id: runId };
    throw err;
  }
}

/** Records every line of an accepted set with something to remit on its obligation, then marks the set. */
async function recordObligations(platform: Platform, org: string, id: string): Promise<void> {
  const s = await setState(platform, org, id);
  if (s.status !== 'accepted' || s.obligations_recorded || !s.resolved) return;
  const caller: Caller = { org, livemode: s.livemode, principal: SYSTEM };
  const payDate = s.pay_date ?? lastDayOf(s.period);
  const lines: Array<{ authority_id: string | null; levy: Levy; amount: number; ref: string }> = [
    ...s.lines.paye.map((p, i) => ({ authority_id: s.resolved!.paye[i].authority_id, levy: 'paye' as const, amount: p.amount.amount, ref: p.reconciliation_reference })),
    ...s.lines.pension.map((p, i) => ({ authority_id: s.resolved!.pension[i].authority_id, levy: 'pension' as const, amount: p.amount.amount, ref: p.reconciliation_reference })),
    ...s.lines.levies.map((l, i) => ({ authority_id: s.resolved!.levies[i].authority_id, levy: l.code, amount: l.amount.amount, ref: l.reconciliation_reference })),
  ];
  // A line whose authority is unknown was overridden (it is remitted outside the platform); a zero line owes nothing.
  const owed = lines.filter((l) => l.authority_id !== null && l.amount > 0);
  await Promise.all(owed.map((l) => addObligationLine(platform, caller, {
    authority_id: l.authority_id!, levy: l.levy, period: s.period, livemode: s.livemode, reference: `${s.id}:${l.ref}`, instruction_set_id: s.id, amount: l.amount, pay_date: payDate,
  }, `set:${s.id}:${l.ref}`)));
  await platform.system.ask(IngestedInstructionSet, id, 'obligations_recorded', {}, { org, principal: SYSTEM, lane: 'system', noReply: true });
}

function lastDayOf(period: string): string {
  const [y, m] = period.split('-').map(Number);
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}

/** The steps the intake service runs on this node's commits and the set's reminders. */
export const INTAKE_STEPS: IntakeSteps = { validate: validateSet, recordObligations };
