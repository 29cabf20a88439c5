/**
 * Authority and calendar-entry reads (spec 4.9: GET /v1/remittance/authorities and /{authority_id}
 * with filter kind; GET /v1/remittance/calendar_entries/{id}). Both are data, not records of an
 * organisation: any organisation reads the same set. Shapes not shown by the spec are ours
 * (docs/gaps.md, "Remittance: intake, authorities, obligations").
 */
import { Type } from '@sinclair/typebox';
import { ApiError, callerOf, createDedupe, errorEntry, fieldError, idOf, isIdOf, listEnvelope, listPage, listQueryWith, Money, type MoneyValue, parseListQuery, route, type RouteDef, type ValidationEntry, validationError, enumOf } from '../../../kernel/index.ts';
import { AUTHORITY_KINDS, AUTHORITY_PREFIX, authorities, authorityById, authorityView, LEVIES, type Levy } from './authorities.ts';
import { CALENDAR_ENTRY_PREFIX, calendarEntryView, isDate, isPeriod, parseCalendarEntryId } from './calendar.ts';
import { Obligation, OBLIGATION_PREFIX, OBLIGATION_STATUSES } from './obligation.ts';
import { addObligationLine } from './obligations.ts';

const M = 'remit';
const P = '/v1/remittance';
const GAP = 'Shape not shown by the spec; see docs/gaps.md ("Remittance: intake, authorities, obligations").';

const AuthorityListQuery = listQueryWith({ kind: Type.Optional(enumOf(AUTHORITY_KINDS, 'state_irs, pension_administrator, pension_custodian, nhf, nsitf, itf or nhia.')) });
const CalendarListQuery = listQueryWith({
  period: Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])$', description: 'The pay period, YYYY-MM.' }),
  pay_date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'The pay date the due dates count from, YYYY-MM-DD.' }),
});

const Period = Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])$', description: 'YYYY-MM.' });
const ObligationBody = Type.Object({
  authority_id: Type.String({ minLength: 1, maxLength: 128, description: 'The authority owed (remit_authority_rail_obligation_...).' }),
  levy: enumOf(LEVIES, 'paye, pension, nhf, nsitf, itf or nhia; the authority must collect it.'),
  period: Period,
  pay_date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'The pay date the due date counts from.' }),
  amount: Money({ minimum: 1, description: 'The amount owed, in minor units.' }),
  reference: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Your reference for this amount (default: the Idempotency-Key).' })),
}, { additionalProperties: false });
const ObligationListQuery = listQueryWith({
  status: Type.Optional(enumOf(OBLIGATION_STATUSES)),
  period: Type.Optional(Period),
  levy: Type.Optional(enumOf(LEVIES)),
  authority_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
});

/** A page of an in-memory list in its order, after the id `starting_after` (a foreign id gives an empty page, spec 7). */
function page<T extends { id: string }>(all: readonly T[], q: { limit?: number; starting_after?: string }) {
  const { limit, after } = parseListQuery(q);
  const from = after === undefined ? 0 : all.findIndex((x) => x.id === after) + 1;
  if (after !== undefined && from === 0) return listEnvelope([], false);
  const data = all.slice(from, from + limit);
  return listEnvelope(data, from + limit < all.length);
}

export const routes: RouteDef[] = [
  route({ method: 'POST', path: `${P}/obligations`, auth: 'key', module: M, idempotent: true, status: 201, body: ObligationBody, specGap: GAP,
    summary: 'Record an amount owed to an authority for a levy and period (an obligation outside any instruction set, such as the annual ITF levy). One obligation per authority, levy and period: the amount is added to it; its due date comes from the calendar rules.',
    handler: async (req) => {
      const b = req.body as typeof req.body & { amount: MoneyValue };
      const entries: ValidationEntry[] = [];
      const a = isIdOf(b.authority_id, AUTHORITY_PREFIX) ? authorityById(b.authority_id) : undefined;
      if (!a) entries.push(errorEntry('/authority_id', 'unknown_authority', `authority_id ${b.authority_id} names no remittance authority.`));
      else if (!a.levies.includes(b.levy as Levy)) entries.push(errorEntry('/levy', 'levy_not_collected', `${a.name} does not collect ${b.levy}; it collects ${a.levies.join(', ')}.`));
      if (!isDate(b.pay_date)) entries.push(errorEntry('/pay_date', 'invalid_date', 'pay_date must be a calendar date YYYY-MM-DD.'));
      if (b.amount.currency !== 'NGN') entries.push(errorEntry('/amount/currency', 'currency_mismatch', 'Statutory remittances are in NGN.'));
      if (entries.length) throw validationError(entries, 1);
      const caller = callerOf(req);
      const reference = `manual:${b.reference ?? req.idempotencyKey ?? req.requestId}`;
      return addObligationLine(req.platform, caller, { authority_id: a!.id, levy: b.levy as Levy, period: b.period, livemode: req.livemode, reference, instruction_set_id: null, amount: b.amount.amount, pay_date: b.pay_date }, createDedupe(req));
    } }),
  route({ method: 'GET', path: `${P}/obligations`, auth: 'key', module: M, idempotent: false, query: ObligationListQuery, specGap: GAP,
    summary: 'List obligations, newest first; filter status (due, remitted, late), period, levy or authority_id (one filter at a time, status first).',
    handler: (req) => {
      const q = req.query;
      const list = q.status ? `status:${q.status}` : q.period ? `period:${q.period}` : q.levy ? `levy:${q.levy}` : q.authority_id ? `authority:${q.authority_id}` : 'all';
      return listPage(req.platform.system, Obligation, req.org, list, q, 'desc');
    } }),
  route({ method: 'GET', path: `${P}/obligations/{obligation_id}`, auth: 'key', module: M, idempotent: false, specGap: GAP,
    summary: 'Retrieve an obligation: authority, levy, period, amount, due date, state (due, remitted, late) and the lines it is made of.',
    handler: (req) => req.platform.system.get(Obligation, idOf(req.params.obligation_id!, OBLIGATION_PREFIX, 'obligation'), req.org) }),

  route({ method: 'GET', path: `${P}/authorities`, auth: 'key', module: M, idempotent: false, query: AuthorityListQuery, specGap: GAP,
    summary: 'The remittance authorities as versioned data: every State IRS and the FCT-IRS, the PFAs (with their custodian) and PFCs, FMBN (NHF), NSITF, ITF and NHIA; filter kind.',
    handler: async (req) => page(authorities(req.query.kind).map((a) => authorityView(a, req.livemode)), req.query) }),
  route({ method: 'GET', path: `${P}/authorities/{authority_id}`, auth: 'key', module: M, idempotent: false, specGap: GAP,
    summary: 'Retrieve an authority: official name, jurisdiction, levies, and the (sandbox) collection account a leg pays.',
    handler: async (req) => {
      const a = authorityById(idOf(req.params.authority_id!, AUTHORITY_PREFIX, 'remittance authority'));
      if (!a) throw new ApiError('not_found', `No remittance authority with id ${req.params.authority_id}.`);
      return authorityView(a, req.livemode);
    } }),
  route({ method: 'GET', path: `${P}/calendar_entries`, auth: 'key', module: M, idempotent: false, query: CalendarListQuery, specGap: GAP,
    summary: 'The statutory calendar for a pay date: one entry per levy (PAYE, pension, NHF, NSITF, ITF, NHIA) with its due date (null where the rule is unconfirmed).',
    handler: async (req) => {
      const { period, pay_date } = req.query;
      if (!isPeriod(period) || !isDate(pay_date)) throw fieldError('/pay_date', 'invalid_date', 'period must be YYYY-MM and pay_date a calendar date.', 'period must be YYYY-MM and pay_date a calendar date YYYY-MM-DD.');
      return page(LEVIES.map((l) => calendarEntryView(l, period, pay_date, req.livemode)), req.query);
    } }),
  route({ method: 'GET', path: `${P}/calendar_entries/{id}`, auth: 'key', module: M, idempotent: false, specGap: GAP,
    summary: 'Retrieve a calendar entry: the due date of one levy paid on one pay date, the rule and its basis, and the holidays skipped.',
    handler: async (req) => {
      const facts = parseCalendarEntryId(idOf(req.params.id!, CALENDAR_ENTRY_PREFIX, 'calendar entry'));
      if (!facts) throw new ApiError('not_found', `No calendar entry with id ${req.params.id}.`);
      return calendarEntryView(facts.levy, facts.period, facts.pay_date, req.livemode);
    } }),
];
