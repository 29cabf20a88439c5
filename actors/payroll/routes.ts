/**
 * Payroll routes (spec 4.8, scope prefix `run`, spec 5.6). Every POST that moves state takes an
 * Idempotency-Key (spec 1 rule 9). Shapes the spec does not show are marked specGap and listed in
 * docs/gaps.md#payroll.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { ApiError, type Caller, callerOf, enumOf, idOf, listEnvelope, listPage, ListQuery, listQueryWith, Money, notFound, parseListQuery, pathRecordId, type Platform, retrieval, route, type RouteDef, type RouteRequest, filteredList } from '../../kernel/index.ts';
import type { AnyActorDef } from '../../runtime/index.ts';
import { RUN_PREFIX } from './payroll-ids.ts';
import { PayrollImport, runImport } from './imports/index.ts';
import { PayProfile } from './pay-profile.ts';
import { updatePayProfile } from './pay-profiles.ts';
import { explainPayslip, getPayslip, issuePayslip, payslipDocument, payslipPage, replayPayslip } from './payslips/payslips.ts';
import { RosterEntry, type RosterPatch } from './roster-entry.ts';
import { updateRosterEntry } from './roster-entries.ts';
import * as S from './schemas.ts';
import { employerSettingsView } from './employer.ts';
import { configureEmployer, type EmployerBody } from './employers.ts';
import { employerSettings } from './runs/gather.ts';
import { MAX_RUN_ITEMS } from './runs/run.ts';
import { PAY_ITEM_CODES } from './engine/index.ts';
import { exportGl, glExportOf } from './runs/gl-export.ts';
import { instructionSetView } from './runs/instruction-set.ts';
import { REMITTANCE_DIRECTORY } from './runs/remittance-directory.ts';
import { payoutInstructionFor } from './runs/payout-instruction.ts';
import { approveRun, calculateRun, cancelRun, createRun, executeRun, pinnedPack, resolveFinding, runState, simulateRun, submitRun, updateRun } from './runs/runs.ts';
import { findingView, Run, RUN_STATUSES, RUN_TYPES, totalsView, EXECUTED } from './runs/run.ts';
import { runPage, runRecord } from './runs/run-records.ts';

const M = 'run';
const PERIOD = Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])$', description: 'YYYY-MM' });
const DATE = Type.String({ format: 'date' });

const ItemMoney = Money({ minimum: 0 });
const PayItemBody = Type.Object({
  payee_ref: Type.String({ minLength: 1, maxLength: 255 }),
  code: enumOf(PAY_ITEM_CODES, 'What the amount is; the pinned pack says which bases it joins and how PAYE treats it (reference ng-payroll-2026-irregular-pay.md 1.3).'),
  amount: ItemMoney,
  components: Type.Optional(Type.Object({ basic: ItemMoney, housing: ItemMoney, transport: ItemMoney, other_allowances: ItemMoney }, {
    additionalProperties: false, description: 'Required for items given by pay component (arrears): the amount per component, summing to amount.',
  })),
}, { additionalProperties: false });

const EmployerFields = {
  headcount: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Staff count for the pension and ITF thresholds; null counts each run\'s payees.' })),
  turnover_50m_or_more: Type.Optional(Type.Boolean({ description: 'Annual turnover of NGN 50m or more (ITF applies whatever the headcount).' })),
  state: Type.Optional(Type.Union([Type.String({ pattern: '^NG-[A-Z]{2}$' }), Type.Null()], { description: 'ISO 3166-2:NG code of the employer\'s State. PAYE goes to each employee\'s State of residence.' })),
  maker_checker_threshold: Type.Optional(Money({ minimum: 0, description: 'Runs with gross above this need an approver other than the preparer; changing it needs run:approve.' })),
};

/** The threshold guards approval, so changing it takes the approve scope (spec 5.6, 8). */
function thresholdNeedsApprove(req: RouteRequest<any, any>, threshold: unknown): void {
  if (threshold !== undefined && !req.principal?.scopes.has('run:approve')) {
    throw new ApiError('forbidden', 'Setting maker_checker_threshold needs the run:approve scope.');
  }
}

const ProfileFields = {
  name: Type.Optional(Type.Union([Type.String({ maxLength: 255 }), Type.Null()])),
  monthly_basic: Type.Optional(Money({ minimum: 0 })),
  monthly_housing: Type.Optional(Money({ minimum: 0 })),
  monthly_transport: Type.Optional(Money({ minimum: 0 })),
  monthly_other_allowances: Type.Optional(Money({ minimum: 0 })),
  annual_rent_paid: Type.Optional(Money({ minimum: 0 })),
  annual_life_assurance_premium: Type.Optional(Money({ minimum: 0 })),
  annual_mortgage_interest: Type.Optional(Money({ minimum: 0 })),
  state_of_residence: Type.Optional(Type.String({ pattern: '^NG-[A-Z]{2}$' })),
  state_of_residence_since: Type.Optional(Type.String({ format: 'date', description: 'With state_of_residence on PATCH: the day from which it holds (default: today, Lagos time). A day on or before 1 January of a tax year corrects that year\'s PAYE State.' })),
  nhf_contributing: Type.Optional(Type.Boolean()),
  nhia_enrolled: Type.Optional(Type.Boolean()),
  pension_administrator: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Null()])),
  bank_account: Type.Optional(Type.Union([Type.Object({
    bank_code: Type.String({ pattern: '^(\\d{3}|\\d{5})$', description: '3-digit (bank) or 5-digit (other institution) CBN code.' }),
    account_number: Type.String({ pattern: '^\\d{10}$', description: '10-digit NUBAN; its check digit is checked by payouts when the instruction arrives.' }),
    account_name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Null()])),
  }, { additionalProperties: false, description: 'Where net pay is paid; later calculations record it on the payslip and sign it into the payout instruction.' }), Type.Null()])),
};
const runAction = (path: string, summary: string, fn: (req: RouteRequest<any, any>) => Promise<unknown>, extra: Partial<RouteDef> = {}): RouteDef =>
  route({ method: 'POST', path, auth: 'key', module: M, idempotent: true, summary, ...extra, handler: fn } as RouteDef<TSchema, TSchema>);

/**
 * A payee's record the import makes (a pay profile, a roster entry): `GET path` retrieves it and
 * `PATCH path` changes it through `update`, both reading the id that ends the path as a record of
 * `kind` named `what`, and both answering the record.
 */
function payeeRecord(kind: AnyActorDef, what: string, o: {
  path: string; response: TSchema; specGap: string; retrieve: string; change: string; body: TSchema;
  update: (platform: Platform, caller: Caller, id: string, body: unknown) => Promise<unknown>;
}): RouteDef[] {
  const idIn = pathRecordId(o.path, kind, what);
  return [
    retrieval(kind, what, { path: o.path, response: o.response, auth: 'key', module: M, summary: o.retrieve, specGap: o.specGap }),
    route({
      method: 'PATCH', path: o.path, response: o.response, auth: 'key', module: M, idempotent: false, summary: o.change, specGap: o.specGap, body: o.body,
      handler: (req) => o.update(req.platform, callerOf(req), idIn(req), req.body),
    }),
  ];
}

export const routes: RouteDef[] = [
  // ------------------------------------------------------------------ imports, profiles, roster
  route({
    method: 'POST', path: '/v1/payroll/imports', response: S.ImportSchema, auth: 'key', module: M, idempotent: true, status: 201,
    summary: 'Import payees (pay profiles and roster entries) from JSON rows or CSV; returns the import with a ValidationReport naming every failing row. All or nothing.',
    specGap: 'Create bodies of pay profiles and roster entries are not shown; they are created by this import (docs/gaps.md#payroll).',
    body: Type.Object({
      format: enumOf(['json', 'csv']),
      rows: Type.Optional(Type.Array(S.ImportRowDoc, { description: 'JSON rows (format json); at most MAX_IMPORT_ROWS.' })),
      csv: Type.Optional(Type.String()),
      employer: Type.Optional(Type.Object(EmployerFields, { additionalProperties: false, description: 'The employer settings (as PATCH /v1/payroll/employer_settings).' })),
    }, { additionalProperties: false }),
    handler: (req) => {
      thresholdNeedsApprove(req, (req.body as { employer?: { maker_checker_threshold?: unknown } }).employer?.maker_checker_threshold);
      return runImport(req.platform, callerOf(req), req.body as never);
    },
  }),
  route({
    method: 'GET', path: '/v1/payroll/employer_settings', response: S.EmployerSettingsSchema, auth: 'key', module: M, idempotent: false,
    summary: 'The organisation\'s payroll settings: every employer fact the engine reads and the maker-checker threshold; configured false while nobody has given them (runs then raise a finding naming the values assumed).',
    specGap: 'Spec 8 says the threshold is configured per organisation; no resource is shown (docs/gaps.md#payroll).',
    handler: async (req) => {
      const s = await employerSettings(req.platform.system, req.org);
      return employerSettingsView(s, s.configured, req.livemode);
    },
  }),
  route({
    method: 'PATCH', path: '/v1/payroll/employer_settings', response: S.EmployerSettingsSchema, auth: 'key', module: M, idempotent: false,
    summary: 'Change the payroll settings; runs calculated afterwards use them (each run shows the settings it computed with). maker_checker_threshold needs run:approve.',
    specGap: 'Spec 8 says the threshold is configured per organisation; no resource is shown (docs/gaps.md#payroll).',
    body: Type.Object(EmployerFields, { additionalProperties: false, minProperties: 1 }),
    handler: async (req) => {
      const body = req.body as EmployerBody;
      thresholdNeedsApprove(req, body.maker_checker_threshold);
      return configureEmployer(req.platform, callerOf(req), body);
    },
  }),
  retrieval(PayrollImport, 'import', {
    path: '/v1/payroll/imports/{import_id}', response: S.ImportSchema, auth: 'key', module: M,
    summary: 'Retrieve an import and its ValidationReport.', specGap: 'Import fields are not shown.',
  }),
  route({
    method: 'GET', path: '/v1/pay_profiles', response: S.PayProfileListSchema, auth: 'key', module: M, idempotent: false, query: ListQuery,
    summary: 'List pay profiles in payee_ref order (limit, starting_after).', specGap: 'The list is not named by spec 4.8; it pages like every list (docs/gaps.md#payroll).',
    handler: (req) => listPage(req.platform.system, PayProfile, req.org, 'all', req.query as never, 'asc'),
  }),
  ...payeeRecord(PayProfile, 'pay profile', {
    path: '/v1/pay_profiles/{pay_profile_id}', response: S.PayProfileSchema, specGap: 'Pay profile fields are not shown.',
    retrieve: 'Retrieve a pay profile (the account number is shown by its last four digits only).',
    change: 'Change a pay profile; later calculations use it, calculated payslips keep their recorded inputs.',
    body: Type.Object(ProfileFields, { additionalProperties: false, minProperties: 1 }),
    update: (platform, caller, id, body) => updatePayProfile(platform, caller, id, body as Record<string, unknown>),
  }),
  ...payeeRecord(RosterEntry, 'roster entry', {
    path: '/v1/payroll/roster_entries/{roster_entry_id}', response: S.RosterEntrySchema, specGap: 'Roster entry fields are not shown.',
    retrieve: 'Retrieve a roster entry.',
    change: 'Change the employment dates of a roster entry.',
    body: Type.Object({ starts_on: Type.Optional(DATE), ends_on: Type.Optional(Type.Union([DATE, Type.Null()])) }, { additionalProperties: false, minProperties: 1 }),
    update: (platform, caller, id, body) => updateRosterEntry(platform, caller, id, body as RosterPatch),
  }),

  // ------------------------------------------------------------------ runs
  route({
    method: 'POST', path: '/v1/payroll/runs', response: S.RunSchema, auth: 'key', module: M, idempotent: true, status: 201,
    summary: 'Create a draft run; pins the rule pack (version and content hash) and fixes the run type.',
    specGap: 'The create body is not shown: period, run_type, optional pay_date, description, rule_pack_version, corrects_run_id (correction runs).',
    body: Type.Object({
      period: PERIOD,
      run_type: enumOf(RUN_TYPES),
      pay_date: Type.Optional(DATE),
      description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
      rule_pack_version: Type.Optional(Type.String({ pattern: '^\\d{4}\\.\\d{2}\\.\\d+$' })),
      corrects_run_id: Type.Optional(Type.String({ pattern: '^run_enterprise_', description: 'Required for a correction run: the executed run of the same period it corrects.' })),
    }, { additionalProperties: false }),
    handler: (req) => createRun(req.platform, callerOf(req), req.body as never),
  }),
  route({
    method: 'GET', path: '/v1/payroll/runs', response: S.RunListSchema, auth: 'key', module: M, idempotent: false,
    summary: 'List runs, newest first, filtered by status and period.',
    query: listQueryWith({ status: Type.Optional(enumOf(RUN_STATUSES)), period: Type.Optional(PERIOD) }),
    handler: (req) => {
      const q = req.query as { status?: string; period?: string };
      const list = filteredList({ period: q.period, status: q.status });
      return runPage(req.platform, req.org, list, req.query as never);
    },
  }),
  route({
    method: 'GET', path: '/v1/payroll/runs/{run_id}', response: S.RunSchema, auth: 'key', module: M, idempotent: false,
    summary: 'Retrieve a run.',
    specGap: 'Run is shown (spec 2.9); pay_date, description, payee_refs, corrects_run_id, items, employer_settings, prepared_with, approved_with, open_findings and the posting and instruction-set ids are ours (docs/gaps.md#payroll).',
    handler: (req) => runRecord(req.platform, req.org, req.params.run_id!),
  }),
  route({
    method: 'PATCH', path: '/v1/payroll/runs/{run_id}', response: S.RunSchema, auth: 'key', module: M, idempotent: false,
    summary: 'Change a draft or simulated run (pay date, description, the payees it is limited to, its one-off pay items); a calculated run returns to draft.',
    specGap: 'The PATCH body is not shown; run_type and period are fixed at creation; items replace the run\'s pay items (docs/gaps.md#payroll).',
    body: Type.Object({
      pay_date: Type.Optional(DATE),
      description: Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()])),
      payee_refs: Type.Optional(Type.Union([Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { minItems: 1, maxItems: 5_000, uniqueItems: true }), Type.Null()], { description: 'Limit the run to these payees (off-cycle, final settlement); null: everyone employed in the period.' })),
      items: Type.Optional(Type.Array(PayItemBody, { maxItems: MAX_RUN_ITEMS, description: 'One-off pay (bonus, 13th month, arrears, terminal pay ...), replacing the run\'s items. A bonus, thirteenth_month or off_cycle run pays only these; a final settlement pays them with the last month\'s pay.' })),
    }, { additionalProperties: false, minProperties: 1 }),
    handler: (req) => updateRun(req.platform, callerOf(req), req.params.run_id, req.body as never),
  }),
  runAction('/v1/payroll/runs/{run_id}/calculate', 'Calculate the payslips of every payee employed in the period with the pinned pack; raises findings; draft -> simulated.',
    (req) => calculateRun(req.platform, callerOf(req), req.params.run_id),
    { response: S.RunSchema, specGap: 'Transitions are not shown; calculate is how a run leaves draft (docs/gaps.md#payroll).' }),
  runAction('/v1/payroll/runs/{run_id}/submit', 'Submit a calculated run for approval; the person behind the caller\'s credential becomes prepared_by; simulated -> pending_approval.',
    (req) => submitRun(req.platform, callerOf(req), req.params.run_id),
    { response: S.RunSchema, specGap: 'Transitions are not shown; submit is how a run reaches pending_approval (docs/gaps.md#payroll).' }),
  runAction('/v1/payroll/runs/{run_id}/simulate', 'Simulate the run with a draft rule pack (or the pinned one); nothing is written; adds a per-payee difference against the pinned pack.',
    (req) => simulateRun(req.platform, callerOf(req), req.params.run_id, (req.body as { draft_rule_pack_version?: string } | undefined)?.draft_rule_pack_version),
    { body: Type.Object({ draft_rule_pack_version: Type.Optional(Type.String({ pattern: '^\\d{4}\\.\\d{2}\\.\\d+$' })) }, { additionalProperties: false }), response: S.SimulationSchema,
      specGap: 'The simulation is shown (RunSimulation); livemode, mocked, pinned_rule_pack, payees_refused and the per-payee differences are ours (docs/gaps.md#payroll).' }),
  runAction('/v1/payroll/runs/{run_id}/approve', 'Approve a run; refused (409) for the preparer (the same person, with any of their credentials) above the maker-checker threshold and while a p0 finding is open.',
    (req) => approveRun(req.platform, callerOf(req), req.params.run_id), { response: S.RunSchema }),
  runAction('/v1/payroll/runs/{run_id}/execute', 'Execute an approved run: payslips become final, the ledger posting is caused, the instruction set built and the payout instruction signed.',
    (req) => executeRun(req.platform, callerOf(req), req.params.run_id),
    { response: S.RunSchema, specGap: 'Execute is named; its response is not shown: the Run, executing (docs/gaps.md#payroll).' }),
  runAction('/v1/payroll/runs/{run_id}/cancel', 'Cancel a run that has not started executing.',
    (req) => cancelRun(req.platform, callerOf(req), idOf(req.params.run_id, RUN_PREFIX, 'payroll run'), (req.body as { reason?: string } | undefined)?.reason ?? null),
    { body: Type.Object({ reason: Type.Optional(Type.String({ maxLength: 500 })) }, { additionalProperties: false }), response: S.RunSchema,
      specGap: 'Cancel is named; its body (reason) and response are not shown (docs/gaps.md#payroll).' }),
  route({
    method: 'GET', path: '/v1/payroll/runs/{run_id}/totals', response: S.RunTotalsSchema, auth: 'key', module: M, idempotent: false,
    summary: 'The run totals (RunTotals): each figure the sum of payslip lines.',
    handler: async (req) => totalsView((await runState(req.platform, callerOf(req), req.params.run_id)).totals),
  }),
  route({
    method: 'GET', path: '/v1/payroll/runs/{run_id}/findings', response: S.FindingListSchema, auth: 'key', module: M, idempotent: false,
    summary: 'List the findings of a run, in the order raised.', specGap: 'Finding fields are not shown.',
    query: ListQuery,
    handler: async (req) => {
      const s = await runState(req.platform, callerOf(req), req.params.run_id);
      const { limit, after } = parseListQuery(req.query as never);
      let start = 0;
      if (after !== undefined) {
        const i = s.findings.findIndex((f) => f.id === after);
        if (i < 0) return listEnvelope([], false);
        start = i + 1;
      }
      const page = s.findings.slice(start, start + limit);
      return listEnvelope(page.map((f) => findingView(s, f)), start + limit < s.findings.length);
    },
  }),
  route({
    method: 'GET', path: '/v1/payroll/runs/{run_id}/findings/{finding_id}', response: S.FindingSchema, auth: 'key', module: M, idempotent: false,
    summary: 'Retrieve a finding.', specGap: 'Finding fields are not shown.',
    handler: async (req) => {
      const s = await runState(req.platform, callerOf(req), req.params.run_id);
      const f = s.findings.find((x) => x.id === req.params.finding_id);
      if (!f) throw notFound('finding', req.params.finding_id);
      return findingView(s, f);
    },
  }),
  runAction('/v1/payroll/runs/{run_id}/findings/{finding_id}/resolve', 'Resolve a finding with a reason; an open p0 finding blocks approval.',
    (req) => resolveFinding(req.platform, callerOf(req), idOf(req.params.run_id, RUN_PREFIX, 'payroll run'), req.params.finding_id, (req.body as { reason: string }).reason),
    { body: Type.Object({ reason: Type.String({ minLength: 1, maxLength: 1000 }) }, { additionalProperties: false }), response: S.FindingSchema, specGap: 'The resolve body is not shown: reason.' }),
  route({
    method: 'GET', path: '/v1/payroll/runs/{run_id}/instruction_set', response: S.InstructionSetSchema, auth: 'key', module: M, idempotent: false,
    summary: 'The InstructionSet of an executed run (PAYE per authority, pension per administrator, one line per levy), each line with its remittance due date.',
    specGap: 'InstructionSet is shown (spec 2.10); authority_name and each line\'s due_date are ours (docs/gaps.md#payroll).',
    handler: async (req) => {
      const s = await runState(req.platform, callerOf(req), req.params.run_id);
      if (!s.instruction_set) throw new ApiError('conflict', `Run ${s.id} is ${s.status}; its instruction set is built when it executes.`);
      return instructionSetView(s.instruction_set, s.livemode, pinnedPack(s), s.pay_date, req.platform.services.get(REMITTANCE_DIRECTORY));
    },
  }),
  route({
    method: 'GET', path: '/v1/payroll/runs/{run_id}/payout_instruction', auth: 'key', module: M, idempotent: false,
    summary: 'The signed payout instruction of an executed run (Ed25519, a key per organisation and realm), as the payouts area receives it.',
    specGap: 'Not a named endpoint: the signed instruction payroll hands to payouts (spec 1 rule 10), readable for inspection.',
    handler: async (req) => {
      const s = await runState(req.platform, callerOf(req), req.params.run_id);
      const signed = s.payout ? await payoutInstructionFor(req.platform.system, s.org, s.id) : undefined;
      if (!signed) throw new ApiError('conflict', `Run ${s.id} is ${s.status}; it has no signed payout instruction.`);
      return signed;
    },
  }),
  runAction('/v1/payroll/runs/{run_id}/gl_export', 'Create a general-ledger export (CSV) of an executed run.',
    async (req) => exportGl(req.platform, callerOf(req), idOf(req.params.run_id, RUN_PREFIX, 'payroll run')),
    { response: S.GlExportSchema, specGap: 'Shape of the GL export is not shown (docs/gaps.md#payroll).', status: 201 }),
  route({
    method: 'GET', path: '/v1/payroll/runs/{run_id}/gl_export', auth: 'key', module: M, idempotent: false,
    summary: 'The latest general-ledger export of the run, as CSV.', specGap: 'Shape of the GL export is not shown (docs/gaps.md#payroll).',
    handler: async (req) => {
      const s = await runState(req.platform, callerOf(req), req.params.run_id);
      const last = s.gl_exports[s.gl_exports.length - 1];
      if (!last || !EXECUTED.has(s.status)) throw new ApiError('not_found', `Run ${s.id} has no general-ledger export; POST one first.`);
      return { body: null, raw: { contentType: 'text/csv; charset=utf-8', bytes: await glExportOf(req.platform, s, last.id) } };
    },
  }),

  // ------------------------------------------------------------------ payslips
  route({
    method: 'GET', path: '/v1/payroll/runs/{run_id}/payslips', response: S.PayslipListSchema, auth: 'key', module: M, idempotent: false,
    summary: 'List the payslips of a calculated run in payee order, lines and traces included.',
    specGap: 'Not a named endpoint: payslip ids are otherwise unreachable (docs/gaps.md#payroll).',
    query: ListQuery,
    handler: (req) => payslipPage(req.platform, callerOf(req), req.params.run_id, req.query as never),
  }),
  route({
    method: 'GET', path: '/v1/payroll/payslips/{payslip_id}', response: S.PayslipSchema, auth: 'key', module: M, idempotent: false,
    summary: 'Retrieve a payslip with its lines, each carrying its trace.', specGap: 'Payslip fields are not shown.',
    handler: (req) => getPayslip(req.platform, callerOf(req), req.params.payslip_id),
  }),
  runAction('/v1/payroll/payslips/{payslip_id}/replay', 'Recompute the payslip from its recorded inputs and the pinned pack; identical, or where it differs.',
    (req) => replayPayslip(req.platform, callerOf(req), req.params.payslip_id),
    { response: S.ReplaySchema, specGap: 'Replay is named; its response is not shown (docs/gaps.md#payroll).' }),
  route({
    method: 'GET', path: '/v1/payroll/payslips/{payslip_id}/explanation', response: S.ExplanationSchema, auth: 'key', module: M, idempotent: false,
    summary: 'The payslip in plain words, built from its traces.',
    specGap: 'The explanation is named; its shape is not shown (docs/gaps.md#payroll).',
    handler: (req) => explainPayslip(req.platform, callerOf(req), req.params.payslip_id),
  }),
  runAction('/v1/payroll/payslips/{payslip_id}/issue', 'Issue a final payslip to its payee (records issued_at).',
    (req) => issuePayslip(req.platform, callerOf(req), req.params.payslip_id),
    { response: S.PayslipSchema, specGap: 'Issue is named; payslip fields are not shown (docs/gaps.md#payroll).' }),
  route({
    method: 'GET', path: '/v1/payroll/payslips/{payslip_id}/document', auth: 'key', module: M, idempotent: false,
    summary: 'The payslip as a PDF.',
    specGap: 'The document is named; its format is not shown: application/pdf (docs/gaps.md#payroll).',
    handler: async (req) => ({ body: null, raw: { contentType: 'application/pdf', bytes: await payslipDocument(req.platform, callerOf(req), req.params.payslip_id) } }),
  }),
];
