/**
 * The operations of a remediation case (remediation-case.ts) the routes call (spec 4.5):
 * - reconcile (GET /v1/rail/reconcile; shape not shown, docs/gaps.md#engagements): engagements
 *   whose standing disagrees with their instruments or passports. Each finding opens a remediation
 *   case once (its id is derived from the finding, so reading again opens nothing new). A page of
 *   engagements is checked per call (limit, starting_after over engagements).
 * - resolve (POST /v1/rail/remediation_cases/{id}/resolve): a person resolves a case once, with a
 *   note; the rule lives in remediation-case.ts.
 */
import { type Caller, parseListQuery, type Platform } from '../../kernel/index.ts';
import { isEmploymentClass } from './classify.ts';
import { Engagement, type EngagementState } from './engagement.ts';
import { dateOf } from './ids.ts';
import { sealHolds } from './instruments.ts';
import { rulePack } from './packs.ts';
import { engagementNow, passportsOf, storedInstrument } from './reads.ts';
import { type CaseOpen, RemediationCase, remediationCaseId } from './remediation-case.ts';

interface Finding {
  object: 'reconcile_finding';
  engagement_id: string;
  status: EngagementState['status'];
  code: string;
  detail: string;
  remediation_case_id: string;
}

async function findingsOf(p: Platform, org: string, e: EngagementState): Promise<Array<{ code: string; detail: string; key: string }>> {
  const out: Array<{ code: string; detail: string; key: string }> = [];
  const standing = e.status === 'executed' || e.status === 'registered' || e.status === 'current';
  if (standing) {
    const id = e.instrument_in_force_id;
    const s = id === null ? undefined : await storedInstrument(p, org, id);
    if (!s || (s.status !== 'executed' && s.status !== 'superseded')) out.push({ code: 'instrument_not_executed', detail: `The engagement is ${e.status} but its instrument in force ${id ?? '(none)'} is ${s?.status ?? 'missing'}.`, key: id ?? 'none' });
    else if (!sealHolds(s)) out.push({ code: 'instrument_seal_broken', detail: `The seal of instrument ${s.id} does not recompute from the instrument as stored.`, key: s.id });
    const passports = passportsOf(p, org, e);
    for (const [party, ref] of [['worker', e.worker_ref], ['engaging_party', e.engaging_party_ref]] as const) {
      if (!passports[party].live) out.push({ code: 'passport_not_live', detail: `The engagement is ${e.status} but the ${party.replace('_', ' ')}'s passport (${ref}) is not live.`, key: ref });
    }
  }
  if (e.status === 'papered' && e.papered_instrument_id) {
    const s = await storedInstrument(p, org, e.papered_instrument_id);
    if (s && s.status !== 'awaiting_assent' && s.status !== 'drafted') out.push({ code: 'papered_instrument_not_pending', detail: `The engagement is papered with instrument ${s.id}, which is ${s.status}.`, key: s.id });
  }
  const k = e.classification?.classification;
  if ((e.status === 'classified' || e.status === 'papered' || e.status === 'lapsed') && e.instrument_in_force_id === null && k && isEmploymentClass(k) && k !== 'apprenticeship') {
    const pack = rulePack(e.classification!.rule_pack.version) ?? rulePack()!;
    const due = new Date(Date.parse(`${e.starts_on}T00:00:00.000Z`) + pack.timing.written_particulars_within_days * 86_400_000);
    if (p.clock.now() >= due.getTime()) out.push({ code: 'written_particulars_overdue', detail: `Employment began ${e.starts_on}; written particulars were due by ${dateOf(due.getTime())} (Labour Act s.7) and no instrument is executed.`, key: e.starts_on });
  }
  return out;
}

export async function reconcile(p: Platform, c: Caller, query: { limit?: number; starting_after?: string }) {
  const { limit, after } = parseListQuery(query);
  const page = await p.system.listIds(Engagement, c.org, 'all', { after, limit, order: 'asc' });
  const findings: Finding[] = [];
  for (const id of page.ids) {
    const e = await engagementNow(p, c.org, id); // an execution its reaction has not recorded yet is no finding
    for (const f of await findingsOf(p, c.org, e)) {
      const caseId = remediationCaseId(c.org, ['reconcile', e.id, f.code, f.key]);
      const open: CaseOpen = { engagement_id: e.id, source: 'reconcile', code: f.code, detail: f.detail, dispute_id: null, livemode: e.livemode };
      await p.system.ask(RemediationCase, caseId, 'open', open, c);
      findings.push({ object: 'reconcile_finding', engagement_id: e.id, status: e.status, code: f.code, detail: f.detail, remediation_case_id: caseId });
    }
  }
  return {
    object: 'reconciliation' as const,
    livemode: c.livemode,
    mocked: false,
    engagements_checked: page.ids.length,
    last_engagement_id: page.ids.at(-1) ?? null,
    has_more: page.hasMore,
    findings,
  };
}

export function resolveCase(p: Platform, c: Caller, caseId: string, body: { note: string }) {
  return p.system.ask(RemediationCase, caseId, 'resolve', body, c);
}
