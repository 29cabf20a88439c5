/**
 * Intake routes (spec 2.10, 3 "Remittance instruction set", 4.9): instruction sets submitted from
 * outside or made from runs, their validation reports, totals, discrepancies, overrides with a
 * published reason code, accept and reject; CSV imports; the published reason codes. Shapes the
 * spec does not show are ours (docs/gaps.md, "Remittance: intake, authorities, obligations").
 */
import { callerOf, createDedupe, createdId, idOf, listEnvelope, listPage, ListQuery, route, type RouteDef, type RouteRequest, filteredList } from '../../../kernel/index.ts';
import { IMPORT_PREFIX, RemittanceImport } from './import.ts';
import { DISCREPANCY_PREFIX, IngestedInstructionSet, SET_PREFIX } from './instruction-set.ts';
import { importInstructionSet } from './imports.ts';
import {
  acceptInstructionSet, discrepanciesOf, discrepancyOf, overrideDiscrepancy, rejectInstructionSet, setTotals, submitInstructionSet, type SubmittedInstructions,
} from './instruction-sets.ts';
import { reasonCodeList } from './reason-codes.ts';
import * as S from './schemas.ts';

const M = 'remit';
const P = '/v1/remittance';
const GAP = 'Shape not shown by the spec; see docs/gaps.md ("Remittance: intake, authorities, obligations").';
const setId = (req: RouteRequest) => idOf(req.params.instruction_set_id!, SET_PREFIX, 'instruction set');
const ask = (req: RouteRequest) => ({ ...callerOf(req), dedupeId: createDedupe(req) });

export const routes: RouteDef[] = [
  route({ method: 'GET', path: `${P}/instruction_sets`, auth: 'key', module: M, idempotent: false, query: S.SetListQuery,
    summary: 'List ingested instruction sets, newest first; filter status and period.',
    handler: (req) => {
      const q = req.query;
      const list = filteredList({ period: q.period, status: q.status });
      return listPage(req.platform.system, IngestedInstructionSet, req.org, list, q, 'desc');
    } }),
  route({ method: 'POST', path: `${P}/instruction_sets`, auth: 'key', module: M, idempotent: true, status: 201, body: S.SubmitBody, specGap: GAP, errors: ['idempotency_key_reused', 'invalid_money_amount'],
    summary: 'Submit an instruction set from outside (source external_api). It is received, every line validated, and returned pending acceptance with its validation report; nothing is committed until accepted.',
    handler: (req) => submitInstructionSet(req.platform, callerOf(req), { ...req.body, instructions: req.body.instructions as unknown as SubmittedInstructions }, createdId(req, SET_PREFIX), createDedupe(req)) }),
  route({ method: 'GET', path: `${P}/instruction_sets/{instruction_set_id}`, auth: 'key', module: M, idempotent: false,
    summary: 'Retrieve an ingested instruction set with its instructions (each line with its authority and due date) and its validation report.',
    handler: (req) => req.platform.system.get(IngestedInstructionSet, setId(req), req.org) }),
  route({ method: 'GET', path: `${P}/instruction_sets/{instruction_set_id}/totals`, auth: 'key', module: M, idempotent: false, specGap: GAP,
    summary: 'The set\u2019s totals by section, its declared total and, for a run\u2019s set, the run\u2019s deductions plus employer contributions it reconciles to, to the minor unit.',
    handler: async (req) => setTotals(req.platform, req.org, setId(req)) }),
  route({ method: 'GET', path: `${P}/instruction_sets/{instruction_set_id}/discrepancies`, auth: 'key', module: M, idempotent: false, query: ListQuery, specGap: GAP,
    summary: 'The set\u2019s discrepancies in line order: open until overridden with a reason code.',
    handler: async (req) => discrepanciesOf(req.platform, req.org, setId(req), req.query) }),
  route({ method: 'GET', path: `${P}/instruction_sets/{instruction_set_id}/discrepancies/{discrepancy_id}`, auth: 'key', module: M, idempotent: false, specGap: GAP,
    summary: 'Retrieve one discrepancy of the set.',
    handler: async (req) => discrepancyOf(req.platform, req.org, setId(req), req.params.discrepancy_id!) }),
  route({ method: 'POST', path: `${P}/instruction_sets/{instruction_set_id}/discrepancies/{discrepancy_id}/override`, auth: 'key', module: M, idempotent: true, body: S.OverrideBody, specGap: GAP,
    summary: 'Override an open discrepancy with a reason code from the published list (GET /v1/remittance/reason_codes); `other` needs a note. Only while the set is pending acceptance.',
    handler: (req) => overrideDiscrepancy(req.platform, ask(req), setId(req), idOf(req.params.discrepancy_id!, DISCREPANCY_PREFIX, 'discrepancy'), req.body) }),
  route({ method: 'POST', path: `${P}/instruction_sets/{instruction_set_id}/accept`, auth: 'key', module: M, idempotent: true,
    summary: 'Accept a set pending acceptance: refused (409) while any discrepancy is unresolved. Only now are its lines committed, as obligations.',
    handler: async (req) => acceptInstructionSet(req.platform, ask(req), setId(req)) }),
  route({ method: 'POST', path: `${P}/instruction_sets/{instruction_set_id}/reject`, auth: 'key', module: M, idempotent: true, body: S.RejectBody, specGap: GAP,
    summary: 'Reject a set pending acceptance; nothing of it is committed.',
    handler: (req) => rejectInstructionSet(req.platform, ask(req), setId(req), req.body?.reason ?? null) }),
  route({ method: 'POST', path: `${P}/imports`, auth: 'key', module: M, idempotent: true, status: 201, body: S.ImportBody, specGap: GAP, errors: ['idempotency_key_reused'],
    summary: 'Import an instruction set as a CSV file (source external_file). Every failing row is named; a file with any failing row is rejected whole and makes no set; otherwise the set is received and validated like a submitted one.',
    handler: (req) => importInstructionSet(req.platform, callerOf(req), req.body, createdId(req, IMPORT_PREFIX), createDedupe(req)) }),
  route({ method: 'GET', path: `${P}/imports/{import_id}`, auth: 'key', module: M, idempotent: false, specGap: GAP,
    summary: 'Retrieve an import: status (completed or rejected), its validation report and the instruction set it made.',
    handler: (req) => req.platform.system.get(RemittanceImport, idOf(req.params.import_id!, IMPORT_PREFIX, 'import'), req.org) }),
  route({ method: 'GET', path: `${P}/reason_codes`, auth: 'key', module: M, idempotent: false, specGap: GAP,
    summary: 'The published codes: discrepancy codes (block accept until overridden), warning codes, and the override reason codes an override must name.',
    handler: async () => listEnvelope(reasonCodeList(), false) }),
];
