/**
 * Remit routes (spec 3 "Remittance instruction set", 4.9): remittances, legs, receipts, returns,
 * the period's audit export and reconciliation. Request and response shapes are not shown by the
 * spec (docs/gaps.md, "Remittance: remittances, legs, receipts, returns"). Event and audit-entry
 * reads are served for every module by the delivery area.
 */
import { callerOf, createDedupe, createdId, idOf, listPage, type RouteDef, type RouteRequest, route } from '../../../kernel/index.ts';
import { LEG_PREFIX, RECEIPT_PREFIX, REMITTANCE_PREFIX, RETURN_PREFIX } from './ids.ts';
import { getLeg, listLegs, retryLeg } from './legs.ts';
import { type ReceiptBody, recordReceipt } from './receipts.ts';
import { Receipt } from './receipt.ts';
import { Remittance } from './remittance.ts';
import { approveRemittance, createRemittance, executeRemittance } from './remittances.ts';
import { auditExport, reconciliation } from './reports.ts';
import { Return } from './return.ts';
import { approveReturn, submitReturn } from './returns.ts';
import * as S from './schemas.ts';

const M = 'remit';
const P = '/v1/remittance';
const gap = (what: string) => `${what} not shown by the spec; see docs/gaps.md ("Remittance: remittances, legs, receipts, returns").`;
const ask = (req: RouteRequest) => ({ ...callerOf(req), dedupeId: createDedupe(req) });
const remittanceId = (req: RouteRequest) => idOf(req.params.remittance_id!, REMITTANCE_PREFIX, 'remittance');
const returnId = (req: RouteRequest) => idOf(req.params.return_id!, RETURN_PREFIX, 'return');
const legId = (req: RouteRequest) => idOf(req.params.leg_id!, LEG_PREFIX, 'remittance leg');

export const routes: RouteDef[] = [
  // Remittances.
  route({ method: 'POST', path: `${P}/remittances`, auth: 'key', module: M, idempotent: true, status: 201, body: S.CreateRemittanceBody, specGap: gap('The body and record of a remittance are'),
    errors: ['validation_failed', 'organisation_mismatch'],
    summary: 'Make a remittance from an accepted instruction set: one leg per authority (PAYE to each State IRS, pension to each PFA\u2019s custodian, each levy to its collector). One remittance per set; it waits for approval.',
    handler: (req) => createRemittance(req.platform, ask(req), req.body) }),
  route({ method: 'GET', path: `${P}/remittances`, auth: 'key', module: M, idempotent: false, query: S.RemittanceListQuery, specGap: gap('The remittance list is'),
    summary: 'List remittances, newest first; filter status or period.',
    handler: (req) => listPage(req.platform.system, Remittance, req.org, req.query.status ? `status:${req.query.status}` : req.query.period ? `period:${req.query.period}` : 'all', req.query, 'desc') }),
  route({ method: 'GET', path: `${P}/remittances/{remittance_id}`, auth: 'key', module: M, idempotent: false, summary: 'Retrieve a remittance.',
    handler: (req) => req.platform.system.get(Remittance, remittanceId(req), req.org) }),
  route({ method: 'POST', path: `${P}/remittances/{remittance_id}/approve`, auth: 'key', module: M, idempotent: true,
    summary: 'Approve a remittance. Refused for the person who prepared it, with any of their credentials, when its total is above the organisation\u2019s maker-checker threshold.',
    handler: (req) => approveRemittance(req.platform, ask(req), remittanceId(req)) }),
  route({ method: 'POST', path: `${P}/remittances/{remittance_id}/execute`, auth: 'key', module: M, idempotent: true,
    summary: 'Execute an approved remittance: each leg pays its authority through the payouts module with a signed instruction (source remit) and runs independently; one leg\u2019s failure holds no other.',
    handler: (req) => executeRemittance(req.platform, ask(req), remittanceId(req)) }),

  // Legs.
  route({ method: 'GET', path: `${P}/remittances/{remittance_id}/legs`, auth: 'key', module: M, idempotent: false, query: S.LegListQuery, specGap: gap('The leg record is'),
    summary: 'The remittance\u2019s legs in authority order; filter status.',
    handler: async (req) => listLegs(req.platform, req.org, remittanceId(req), req.query) }),
  route({ method: 'GET', path: `${P}/remittances/{remittance_id}/legs/{leg_id}`, auth: 'key', module: M, idempotent: false, summary: 'Retrieve a leg: its authority, amount, payment attempts and receipt.',
    handler: async (req) => getLeg(req.platform, req.org, remittanceId(req), legId(req)) }),
  route({ method: 'POST', path: `${P}/remittances/{remittance_id}/legs/{leg_id}/retry`, auth: 'key', module: M, idempotent: true, specGap: gap('The effect of retry is'),
    summary: 'Retry a failed leg. A new payment attempt (a new instruction_ref) is made only when the last instruction failed for good; one that never executed (a funding shortfall) is resumed. A leg is never paid twice.',
    handler: async (req) => retryLeg(req.platform, ask(req), remittanceId(req), legId(req)) }),

  // Receipts.
  route({ method: 'POST', path: `${P}/receipts`, auth: 'key', module: M, idempotent: true, status: 201, body: S.ReceiptBody, specGap: gap('The body and record of a receipt are'),
    errors: ['validation_failed', 'organisation_mismatch'],
    summary: 'Record the authority\u2019s receipt for a paid leg (its document as the sandbox issued it, or its fields). Vaulted when its amount, period and authority agree with the leg (the leg completes); quarantined otherwise.',
    handler: (req) => {
      const c = callerOf(req);
      const body = { ...(req.body as ReceiptBody), leg_id: idOf(req.body.leg_id, LEG_PREFIX, 'remittance leg') };
      return recordReceipt(req.platform, c, body, createdId(req, RECEIPT_PREFIX));
    } }),
  route({ method: 'GET', path: `${P}/receipts/{receipt_id}`, auth: 'key', module: M, idempotent: false, summary: 'Retrieve a receipt: vaulted or quarantined, what was parsed, and its document hash.',
    handler: (req) => req.platform.system.get(Receipt, idOf(req.params.receipt_id!, RECEIPT_PREFIX, 'receipt'), req.org) }),

  // Returns.
  route({ method: 'GET', path: `${P}/returns`, auth: 'key', module: M, idempotent: false, query: S.ReturnListQuery, specGap: gap('The return list is'),
    summary: 'List returns, newest first; filter period (YYYY-MM for monthly schedules, YYYY for annual returns).',
    handler: (req) => listPage(req.platform.system, Return, req.org, req.query.period ? `period:${req.query.period}` : 'all', req.query, 'desc') }),
  route({ method: 'GET', path: `${P}/returns/{return_id}`, auth: 'key', module: M, idempotent: false, specGap: gap('The return record and schedule layouts are'),
    summary: 'Retrieve a return: a leg\u2019s monthly schedule or the annual employer return, with its sections, rows and content hash.',
    handler: (req) => req.platform.system.get(Return, returnId(req), req.org) }),
  route({ method: 'POST', path: `${P}/returns/{return_id}/approve`, auth: 'key', module: M, idempotent: true,
    summary: 'Approve a return (maker-checker by person, as a remittance).',
    handler: (req) => approveReturn(req.platform, ask(req), returnId(req)) }),
  route({ method: 'POST', path: `${P}/returns/{return_id}/submit`, auth: 'key', module: M, idempotent: true, specGap: gap('The authority sandbox\u2019s answer to a return is'),
    summary: 'Submit an approved return to the authority\u2019s sandbox once what it covers is receipted: acknowledged (submitted) or rejected with the reasons.',
    handler: (req) => submitReturn(req.platform, ask(req), returnId(req)) }),

  // The period's audit export and reconciliation.
  route({ method: 'GET', path: `${P}/audit_exports`, auth: 'key', module: M, idempotent: false, query: S.PeriodQuery, specGap: gap('The audit export is'),
    summary: 'A period\u2019s instruction sets, obligations, remittances, legs, receipts (with each document\u2019s sha256) and returns in one file, with the sha256 of its content.',
    handler: (req) => auditExport(req.platform, callerOf(req), req.query.period) }),
  route({ method: 'GET', path: `${P}/reconciliations`, auth: 'key', module: M, idempotent: false, query: S.PeriodQuery, specGap: gap('The reconciliation is'),
    summary: 'A period\u2019s obligations against what the legs paid against what vaulted receipts show, per authority and levy; clean when all agree.',
    handler: (req) => reconciliation(req.platform, callerOf(req), req.query.period) }),
];
