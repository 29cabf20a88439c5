/**
 * Identity verification (spec 2.4 IdentityVerification, 3 "Identity verification", 4.3). Its
 * operations (verifications.ts) decide what may be asked (consent, blocklist: nothing is queried when blocked) and asks
 * the sources; this actor records what they said and moves by the evidence rule of evidence.ts.
 *
 * outcome      command           condition                                   events                                   next
 * -----------  ----------------  ------------------------------------------  ---------------------------------------  -----------
 * (none)       create            blocked_because set (nothing queried)       blocked                                  blocked
 * (none)       create            a source silent                             unresolved                               unresolved
 * (none)       create            a source to answer later, or review due     pending                                  pending
 * (none)       create            evidence established                         resolved                                 resolved
 * pending      collect           deadline passed, answers still missing      unresolved (the late source named)       unresolved
 * pending      collect           answers due                                 collection_due (the service collects)    pending
 * pending      record_answer     the reference is awaited                    answered, then as create                 by evidence
 * pending      resolve           a person decides (reason)                    resolved (at the level reached)          resolved
 * unresolved   resolve           a person decides (reason)                    resolved                                 resolved
 * pending      mark_unresolved   a person decides (source, reason)           unresolved                               unresolved
 * pending,     block             a person decides (scope, reason)            blocked (subject_blocklisted)            blocked
 *  unresolved,
 *  resolved
 * resolved     resolve, mark_unresolved                                      409 conflict
 * blocked      any (a decision)                                              409 conflict
 *
 * The first event of a verification carries the request (`request`: who, under which token, what the
 * sources said), so one event records both.
 * A resolved verification names its subject's passport (passport_id); the passport actor issues it
 * (passport.ts reacts to verification.resolved; its operations also ask at once).
 */
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../runtime/index.ts';
import { ApiError, assertNever, recordView } from '../../kernel/index.ts';
import { type Evaluation, evaluate, reachedBy, type SourceResult } from './evidence.ts';
import { evidenceBundleIdOf, passportIdOf, VERIFICATION_PREFIX } from './ids.ts';
import { ACTIVE_POLICY, type AssuranceLevel, policyVersion } from './policy.ts';

export const OUTCOMES = ['pending', 'resolved', 'unresolved', 'blocked'] as const;
export type Outcome = (typeof OUTCOMES)[number];
export const ORIGINS = ['partner_api', 'self_serve', 'assisted_enrolment'] as const;
export type Origin = (typeof ORIGINS)[number];
export const BLOCKED_BECAUSE = ['no_consent', 'consent_scope_insufficient', 'subject_blocklisted'] as const;
export type BlockedBecause = (typeof BLOCKED_BECAUSE)[number];
/** Why a verification waits: a source answers later, or a person reviews the evidence. */
export const PENDING_REASONS = ['awaiting_source', 'review_required'] as const;
export type PendingReason = (typeof PENDING_REASONS)[number];
export const BLOCK_SCOPES = ['subject', 'identifier'] as const;
export type BlockScope = (typeof BLOCK_SCOPES)[number];

/** The decisions a person takes on a verification. */
export const STAFF_OPERATIONS = ['resolve', 'mark_unresolved', 'block'] as const;
export type StaffOperation = (typeof STAFF_OPERATIONS)[number];

export interface StaffDecision {
  operation: StaffOperation;
  decided_by: string;
  decided_at: string;
  reason: string;
  scope?: BlockScope;
}

export interface RequestFacts {
  subject_ref: string;
  consent_token_id: string | null;
  purpose: string | null;
  origin: Origin;
  target_assurance: AssuranceLevel;
  livemode: boolean;
  mocked: boolean;
  policy_version: string;
  checks: string[];
}

export interface VerificationState extends RequestFacts {
  id: string;
  org: string;
  outcome: Outcome;
  results: SourceResult[];
  assurance_reached: AssuranceLevel | null;
  passport_id: string | null;
  unresolved_source: string | null;
  retry_after: number | null;
  blocked_because: BlockedBecause | null;
  pending_reason: PendingReason | null;
  findings: string[];
  decision: StaffDecision | null;
  /** When the service should next collect deferred answers, and when silence is assumed. */
  next_collect_at: number | null;
  deadline_at: number | null;
  created_at: number;
}

/** The request, carried by the first event of a verification (whichever outcome it has). */
export type Requested = RequestFacts & { results: SourceResult[] };

export type VerificationEvent = (
  | { type: 'verification.blocked'; subject_ref: string; blocked_because: BlockedBecause; decision: StaffDecision | null }
  | { type: 'verification.unresolved'; subject_ref: string; source: string; retry_after: number; decision: StaffDecision | null }
  | { type: 'verification.pending'; subject_ref: string; reason: PendingReason; findings: string[]; reached: AssuranceLevel | null; next_collect_at: number | null; deadline_at: number | null }
  | { type: 'verification.resolved'; subject_ref: string; assurance_reached: AssuranceLevel; passport_id: string; consent_token_id: string | null; livemode: boolean; mocked: boolean; findings: string[]; decision: StaffDecision | null }
  | { type: 'verification.collection_due'; subject_ref: string; references: string[]; next_collect_at: number }
  | { type: 'verification.answered'; subject_ref: string; results: SourceResult[] }
) & { request?: Requested };

export interface CreateVerification extends RequestFacts {
  blocked_because: BlockedBecause | null;
  results: SourceResult[];
}

const pack = (s: { policy_version: string }) => (policyVersion(s.policy_version) ?? ACTIVE_POLICY).pack;

/** The events an evaluation of the evidence leads to (create and record_answer). */
function outcomeEvents(s: { org: string; subject_ref: string; policy_version: string; consent_token_id: string | null; livemode: boolean; mocked: boolean }, ev: Evaluation, results: readonly SourceResult[], now: number): VerificationEvent[] {
  const p = pack(s);
  switch (ev.outcome) {
    case 'unresolved':
      return [{ type: 'verification.unresolved', subject_ref: s.subject_ref, source: ev.source, retry_after: now + p.verification.retry_after_seconds * 1000, decision: null }];
    case 'pending': {
      const waiting = results.filter((r) => r.status === 'deferred' && r.ready_at !== null).map((r) => r.ready_at as number);
      const next = waiting.length ? Math.max(now, Math.min(...waiting)) : null;
      return [{
        type: 'verification.pending',
        subject_ref: s.subject_ref,
        reason: ev.reason,
        findings: ev.findings,
        reached: ev.reason === 'review_required' ? ev.reached : null,
        next_collect_at: next,
        deadline_at: next === null ? null : now + p.verification.source_answer_deadline_seconds * 1000,
      }];
    }
    case 'resolved':
      return [{ type: 'verification.resolved', subject_ref: s.subject_ref, assurance_reached: ev.reached, passport_id: passportIdOf(s.org, s.subject_ref), consent_token_id: s.consent_token_id, livemode: s.livemode, mocked: s.mocked, findings: ev.findings, decision: null }];
    default:
      return assertNever(ev);
  }
}

const decisionOf = (op: StaffDecision['operation'], principal: string | undefined, now: number, reason: string, scope?: BlockScope): StaffDecision => ({
  operation: op,
  decided_by: principal ?? 'unknown',
  decided_at: iso(now),
  reason,
  ...(scope ? { scope } : {}),
});

export const Verification = defineActor({
  kind: 'identity_verification',
  prefix: VERIFICATION_PREFIX,
  creates: ['create'],
  initial: (id: string, org: string): VerificationState => ({
    id,
    org,
    subject_ref: '',
    consent_token_id: null,
    purpose: null,
    origin: 'partner_api',
    target_assurance: 'dal_0',
    livemode: false,
    mocked: false,
    policy_version: ACTIVE_POLICY.pack.version,
    checks: [],
    outcome: 'pending',
    results: [],
    assurance_reached: null,
    passport_id: null,
    unresolved_source: null,
    retry_after: null,
    blocked_because: null,
    pending_reason: null,
    findings: [],
    decision: null,
    next_collect_at: null,
    deadline_at: null,
    created_at: 0,
  }),
  decide: {
    create(_s: VerificationState, cmd: CreateVerification, ctx): VerificationEvent[] {
      if (ctx.version > 0) return [];
      const { blocked_because, results, ...facts } = cmd;
      const request: Requested = { ...facts, results };
      if (blocked_because) return [{ type: 'verification.blocked', subject_ref: cmd.subject_ref, blocked_because, decision: null, request }];
      const s = { org: ctx.org, subject_ref: cmd.subject_ref, policy_version: cmd.policy_version, consent_token_id: cmd.consent_token_id, livemode: cmd.livemode, mocked: cmd.mocked };
      const [first, ...rest] = outcomeEvents(s, evaluate(results, pack(s)), results, ctx.now);
      return [{ ...first!, request }, ...rest];
    },
    collect(s: VerificationState, _cmd: unknown, ctx): VerificationEvent[] {
      if (s.outcome !== 'pending' || s.next_collect_at === null) return [];
      const waiting = s.results.filter((r) => r.status === 'deferred');
      if (!waiting.length) return [];
      if (s.deadline_at !== null && ctx.now >= s.deadline_at) {
        return [{ type: 'verification.unresolved', subject_ref: s.subject_ref, source: waiting[0]!.source, retry_after: ctx.now + pack(s).verification.retry_after_seconds * 1000, decision: null }];
      }
      return [{ type: 'verification.collection_due', subject_ref: s.subject_ref, references: [...new Set(waiting.map((r) => r.reference ?? ''))], next_collect_at: ctx.now + pack(s).verification.collect_retry_seconds * 1000 }];
    },
    record_answer(s: VerificationState, cmd: { reference: string; results: SourceResult[] }, ctx): VerificationEvent[] {
      if (s.outcome !== 'pending') return [];
      if (!s.results.some((r) => r.status === 'deferred' && r.reference === cmd.reference)) return [];
      const results = s.results.map((r) => (r.status === 'deferred' && r.reference === cmd.reference ? (cmd.results.find((x) => x.check === r.check) ?? r) : r));
      if (results.some((r) => r.status === 'deferred' && r.reference === cmd.reference)) return []; // still not ready
      const answered: VerificationEvent = { type: 'verification.answered', subject_ref: s.subject_ref, results };
      return [answered, ...outcomeEvents(s, evaluate(results, pack(s)), results, ctx.now)];
    },
    resolve(s: VerificationState, cmd: { reason: string }, ctx): VerificationEvent[] {
      if (s.outcome !== 'pending' && s.outcome !== 'unresolved') throw new ApiError('conflict', `Verification ${s.id} is ${s.outcome}; only a pending or unresolved verification can be resolved.`);
      if (s.results.some((r) => r.status === 'deferred')) throw new ApiError('conflict', `Verification ${s.id} still awaits a source's answer; resolve it after the answer or mark it unresolved.`);
      const reached = reachedBy(s.results, pack(s));
      return [{ type: 'verification.resolved', subject_ref: s.subject_ref, assurance_reached: reached, passport_id: passportIdOf(s.org, s.subject_ref), consent_token_id: s.consent_token_id, livemode: s.livemode, mocked: s.mocked, findings: s.findings, decision: decisionOf('resolve', ctx.principal, ctx.now, cmd.reason) }];
    },
    mark_unresolved(s: VerificationState, cmd: { source: string; reason: string }, ctx): VerificationEvent[] {
      if (s.outcome !== 'pending') throw new ApiError('conflict', `Verification ${s.id} is ${s.outcome}; only a pending verification can be marked unresolved.`);
      return [{ type: 'verification.unresolved', subject_ref: s.subject_ref, source: cmd.source, retry_after: ctx.now + pack(s).verification.retry_after_seconds * 1000, decision: decisionOf('mark_unresolved', ctx.principal, ctx.now, cmd.reason) }];
    },
    block(s: VerificationState, cmd: { scope: BlockScope; reason: string }, ctx): VerificationEvent[] {
      if (s.outcome === 'blocked') throw new ApiError('conflict', `Verification ${s.id} is already blocked.`);
      return [{ type: 'verification.blocked', subject_ref: s.subject_ref, blocked_because: 'subject_blocklisted', decision: decisionOf('block', ctx.principal, ctx.now, cmd.reason, cmd.scope) }];
    },
  },
  evolve(before: VerificationState, e: VerificationEvent, meta): VerificationState {
    const s = e.request ? { ...before, ...e.request, created_at: meta.at } : before;
    switch (e.type) {
      case 'verification.blocked':
        return { ...s, outcome: 'blocked', blocked_because: e.blocked_because, decision: e.decision ?? s.decision, pending_reason: null, next_collect_at: null, deadline_at: null };
      case 'verification.unresolved': {
        const results = s.results.map((r) => (r.status === 'deferred' && r.source === e.source ? { ...r, status: 'silent' as const, finding: 'silent' } : r));
        return { ...s, outcome: 'unresolved', results, unresolved_source: e.source, retry_after: e.retry_after, decision: e.decision ?? s.decision, pending_reason: null, next_collect_at: null, deadline_at: null };
      }
      case 'verification.pending':
        return { ...s, outcome: 'pending', pending_reason: e.reason, findings: e.findings, assurance_reached: e.reached, next_collect_at: e.next_collect_at, deadline_at: e.deadline_at ?? s.deadline_at };
      case 'verification.resolved':
        return { ...s, outcome: 'resolved', assurance_reached: e.assurance_reached, passport_id: e.passport_id, findings: e.findings, decision: e.decision ?? s.decision, pending_reason: null, unresolved_source: null, retry_after: null, next_collect_at: null, deadline_at: null };
      case 'verification.collection_due':
        return { ...s, next_collect_at: e.next_collect_at };
      case 'verification.answered':
        return { ...s, results: e.results };
      default:
        return assertNever(e);
    }
  },
  view: (s: VerificationState) => (recordView('identity_verification', s.id, s.livemode, s.mocked, {
    outcome: s.outcome,
    origin: s.origin,
    subject_ref: s.subject_ref,
    consent_token_id: s.consent_token_id,
    purpose: s.purpose,
    target_assurance: s.target_assurance,
    assurance_reached: s.outcome === 'resolved' || s.pending_reason === 'review_required' ? s.assurance_reached : null,
    passport_id: s.passport_id,
    evidence_bundle_id: s.results.length ? evidenceBundleIdOf(s.id) : null,
    unresolved_source: s.outcome === 'unresolved' ? s.unresolved_source : null,
    retry_after: s.outcome === 'unresolved' && s.retry_after !== null ? iso(s.retry_after) : null,
    blocked_because: s.outcome === 'blocked' ? s.blocked_because : null,
    pending_reason: s.outcome === 'pending' ? s.pending_reason : null,
    findings: s.findings,
    checks: s.results.map((r) => ({ check: r.check, source: r.source, status: r.status, finding: r.finding })),
    decision: s.decision,
    policy_version: s.policy_version,
    created_at: iso(s.created_at),
  })),
  timers: (s: VerificationState) => (s.outcome === 'pending' && s.next_collect_at !== null ? [{ name: 'collect', dueAt: s.next_collect_at, command: 'collect' }] : []),
  indexes(s: VerificationState): IndexEntry[] {
    const k = sortKeyTime(s.created_at);
    return [
      { list: 'all', sortKey: k },
      { list: `outcome:${s.outcome}`, sortKey: k },
      { list: `subject:${passportIdOf(s.org, s.subject_ref)}`, sortKey: k },
    ];
  },
});
