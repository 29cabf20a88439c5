/**
 * A return (spec 4.9 "GET /v1/remittance/returns/{return_id}, POST .../approve, .../submit";
 * reference 4 "Remittance filing and evidence"): the schedule that goes with a leg's payment (PAYE
 * monthly to the State IRS, the pension schedule to the PFC with one section per PFA, the NHF,
 * NSITF, ITF and NHIA schedules), or the annual employer return (Form H1) to a State IRS. Prepared
 * by the platform (a monthly schedule when its remittance executes, the annual return when
 * December's PAYE to that State IRS is receipted), approved under maker-checker, then submitted to
 * the authority's sandbox, which acknowledges or rejects it. Its content never changes once made;
 * content_hash covers it.
 *
 * status            command         condition                                             events              next
 * ----------------  --------------  ----------------------------------------------------  ------------------  ----------------
 * (none)            prepare         -                                                     return.prepared     pending_approval
 * pending_approval  approve         approving person != preparing person when the total   return.approved     approved
 *                                   is above the maker-checker threshold
 * approved,         filed           the authority acknowledged it                         return.submitted    submitted
 *   rejected        filed           the authority rejected it (reasons kept)              return.rejected     rejected
 * others            approve, filed  -                                                     refused (409 conflict)
 */
import { ApiError, factsOf, recordView } from '../../../kernel/index.ts';
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../../runtime/index.ts';
import { RETURN_PREFIX } from './ids.ts';

export type ReturnStatus = 'pending_approval' | 'approved' | 'submitted' | 'rejected';
export type ReturnForm = 'paye_monthly_schedule' | 'pension_schedule' | 'nhf_schedule' | 'nsitf_schedule' | 'itf_schedule' | 'nhia_schedule' | 'annual_employer_return';

export interface ReturnRow {
  payee_ref: string;
  pay_profile_id: string;
  /** The employee's tax id (TIN / Payer-ID): not held by payroll yet (docs/gaps.md). */
  tax_id: string | null;
  state_of_residence: string;
  /** Period (YYYY-MM) for a monthly schedule; the income year's months for an annual return. */
  months: string[];
  gross: number;
  amount: number;
  employee_amount?: number;
  employer_amount?: number;
}

export interface ReturnSection {
  authority_id: string;
  authority_name: string;
  reconciliation_reference: string;
  total: number;
  rows: ReturnRow[];
}

export interface PrepareReturn {
  form: ReturnForm;
  levy: string;
  authority_id: string;
  authority_code: string;
  authority_name: string;
  /** YYYY-MM for a monthly schedule, YYYY for the annual return. */
  period: string;
  remittance_id: string | null;
  leg_ids: string[];
  livemode: boolean;
  currency: string;
  /** False when the instruction set came from outside payroll: its per-employee rows are not ours to show. */
  rows_available: boolean;
  sections: ReturnSection[];
  total: number;
  content_hash: string;
  prepared_by: string | null;
}

export interface ReturnState extends PrepareReturn {
  id: string;
  org: string;
  status: ReturnStatus;
  approved_by: string | null;
  acknowledgement_no: string | null;
  rejection_reasons: string[];
  created_at: number;
  approved_at: number | null;
  submitted_at: number | null;
}

type Ev =
  | ({ type: 'return.prepared' } & PrepareReturn)
  | { type: 'return.approved'; approved_by: string | null; threshold: number }
  | { type: 'return.submitted'; acknowledgement_no: string }
  | { type: 'return.rejected'; reasons: string[] };

const refuse = (s: ReturnState, why: string) => new ApiError('conflict', `Return ${s.id} is ${s.status}: ${why}.`, { status: s.status });

export const Return = defineActor({
  kind: 'remittance_return',
  prefix: RETURN_PREFIX,
  creates: ['prepare'],
  initial: (id: string, org: string): ReturnState => ({
    id, org, form: 'paye_monthly_schedule', levy: '', authority_id: '', authority_code: '', authority_name: '', period: '', remittance_id: null, leg_ids: [], livemode: false, currency: 'NGN',
    rows_available: false, sections: [], total: 0, content_hash: '', prepared_by: null,
    status: 'pending_approval', approved_by: null, acknowledgement_no: null, rejection_reasons: [], created_at: 0, approved_at: null, submitted_at: null,
  }),
  decide: {
    prepare(_s: ReturnState, cmd: PrepareReturn, ctx): Ev[] {
      return ctx.version > 0 ? [] : [{ type: 'return.prepared', ...cmd }];
    },
    approve(s: ReturnState, cmd: { threshold: number; person?: string | null }, ctx): Ev[] {
      if (s.status !== 'pending_approval') throw refuse(s, 'only a return pending approval can be approved');
      const approver = cmd.person ?? ctx.principal ?? null;
      if (approver !== null && approver === s.prepared_by && s.total > cmd.threshold) {
        throw new ApiError('conflict', `The preparer of return ${s.id} (${approver}) cannot approve it with any of their credentials: its total (${s.total} kobo) is above the organisation's maker-checker threshold (${cmd.threshold} kobo).`, { reason: 'maker_checker' });
      }
      return [{ type: 'return.approved', approved_by: approver, threshold: cmd.threshold }];
    },
    filed(s: ReturnState, cmd: { accepted: boolean; acknowledgement_no: string | null; reasons: string[] }): Ev[] {
      if (s.status !== 'approved' && s.status !== 'rejected') throw refuse(s, s.status === 'submitted' ? 'the authority acknowledged it already' : 'a return is approved before it is submitted');
      return cmd.accepted && cmd.acknowledgement_no ? [{ type: 'return.submitted', acknowledgement_no: cmd.acknowledgement_no }] : [{ type: 'return.rejected', reasons: cmd.reasons }];
    },
  },
  evolve(s: ReturnState, e: Ev, meta): ReturnState {
    switch (e.type) {
      case 'return.prepared':
        return { ...s, ...factsOf(e), status: 'pending_approval', created_at: meta.at };
      case 'return.approved':
        return { ...s, status: 'approved', approved_by: e.approved_by, approved_at: meta.at };
      case 'return.submitted':
        return { ...s, status: 'submitted', acknowledgement_no: e.acknowledgement_no, rejection_reasons: [], submitted_at: meta.at };
      case 'return.rejected':
        return { ...s, status: 'rejected', rejection_reasons: e.reasons, submitted_at: meta.at };
    }
  },
  indexes(s: ReturnState): IndexEntry[] {
    const key = sortKeyTime(s.created_at);
    return [{ list: 'all', sortKey: key }, { list: `period:${s.period}`, sortKey: key }, { list: `status:${s.status}`, sortKey: key }];
  },
  view: returnView,
});

const money = (amount: number, currency: string) => ({ amount, currency });

export function returnView(s: ReturnState) {
  const m = (n: number) => money(n, s.currency);
  return recordView('remittance_return', s.id, s.livemode, false, {
    status: s.status,
    form: s.form,
    levy: s.levy,
    authority_id: s.authority_id,
    authority_name: s.authority_name,
    period: s.period,
    remittance_id: s.remittance_id,
    leg_ids: s.leg_ids,
    rows_available: s.rows_available,
    total: m(s.total),
    row_count: s.sections.reduce((a, x) => a + x.rows.length, 0),
    sections: s.sections.map((x) => ({
      authority_id: x.authority_id, authority_name: x.authority_name, reconciliation_reference: x.reconciliation_reference, total: m(x.total),
      rows: x.rows.map((r) => ({
        payee_ref: r.payee_ref, pay_profile_id: r.pay_profile_id, tax_id: r.tax_id, state_of_residence: r.state_of_residence, months: r.months, gross: m(r.gross), amount: m(r.amount),
        ...(r.employee_amount !== undefined ? { employee_amount: m(r.employee_amount) } : {}),
        ...(r.employer_amount !== undefined ? { employer_amount: m(r.employer_amount) } : {}),
      })),
    })),
    content_hash: s.content_hash,
    prepared_by: s.prepared_by,
    approved_by: s.approved_by,
    acknowledgement_no: s.acknowledgement_no,
    rejection_reasons: s.rejection_reasons,
    created_at: iso(s.created_at),
    approved_at: s.approved_at === null ? null : iso(s.approved_at),
    submitted_at: s.submitted_at === null ? null : iso(s.submitted_at),
  });
}
