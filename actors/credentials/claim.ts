/**
 * Competence claim (credentials). Spec 2.5 CompetenceClaim, 3 (Competence claim decay), 6 claim.lapsed.
 * A claim moves along its published decay function on its own, by reminders at its boundaries (not
 * on read): current until ageing_at, ageing until stale_at, stale until expires_at, then lapsed. The
 * boundaries are fixed when the claim is issued (from the policy pack's decay function and the
 * lifetime of its evidence class), so a claim keeps the rules it was made under (spec 9). A lapsed
 * claim stays, shown lapsed and downgraded (its evidence_class becomes e1_claimed; the class it was
 * issued with stays in evidence_class_at_issue). A claim is never extended in place: a new claim
 * supersedes it (superseded_by), and the old one stays.
 *
 * decay_state      command    condition                                   event(s)                                 next
 * ---------------  ---------  ------------------------------------------  ---------------------------------------  ----------------
 * (none)           issue      -                                           claim.issued (state by the clock)        current .. stale
 * current          decay      now >= ageing_at (and further boundaries)   claim.aged [, claim.went_stale [, lapsed]] ageing .. lapsed
 * ageing           decay      now >= stale_at (and expires_at)            claim.went_stale [, claim.lapsed]        stale | lapsed
 * stale            decay      now >= expires_at                           claim.lapsed (reason expired)            lapsed
 * any              decay      no boundary passed                          -                                        (unchanged)
 * not lapsed       lapse      reason given                                claim.lapsed (reason manual)             lapsed
 * lapsed           lapse      -                                           409 conflict
 * any              supersede  not superseded                              claim.superseded                         (unchanged)
 * any              supersede  superseded by the same claim                -                                        (unchanged)
 * any              supersede  superseded by another claim                 409 conflict
 */
import { defineActor, type IndexEntry, iso, sortKeyTime, type TimerWish } from '../../runtime/index.ts';
import { ApiError, assertNever, recordView } from '../../kernel/index.ts';
import { addMonths, dateMs } from './dates.ts';
import { CLAIM_PREFIX } from './ids.ts';
import type { EvidenceClass, Method } from './policy.ts';

export const DECAY_STATES = ['current', 'ageing', 'stale', 'lapsed'] as const;
export type DecayState = (typeof DECAY_STATES)[number];
/** Why a claim lapsed: it reached expiry, or a person lapsed it. */
export const LAPSE_REASONS = ['expired', 'manual'] as const;
export type LapseReason = (typeof LAPSE_REASONS)[number];

export interface ClaimState {
  id: string;
  org: string;
  livemode: boolean;
  mocked: boolean;
  subject_ref: string;
  claim_code: string;
  framework_version: string;
  level: number;
  evidence_class: EvidenceClass;
  evidence_class_at_issue: EvidenceClass;
  evidence_date: string;
  issuing_method: Method | null;
  decay_state: DecayState;
  decay_function: string;
  /** Boundaries, ms: ageing from, stale from, lapsed from (00:00 UTC of expires_at). */
  ageing_at: number;
  stale_at: number;
  expires_at: string;
  lapses_at: number;
  verification_id: string | null;
  supersedes: string | null;
  superseded_by: string | null;
  lapse_reason: LapseReason | null;
  lapse_detail: string | null;
  lapsed_at: number | null;
  created_at: number;
}

/** What issuing a claim takes; the boundaries follow from the evidence date and the pack's figures. */
export interface IssueClaim {
  subject_ref: string;
  claim_code: string;
  framework_version: string;
  level: number;
  evidence_class: EvidenceClass;
  evidence_date: string;
  issuing_method: Method | null;
  decay_function: string;
  lifetime_months: number;
  ageing_fraction: number;
  stale_fraction: number;
  verification_id: string | null;
  supersedes: string | null;
  livemode: boolean;
  mocked: boolean;
}

/** Facts every claim event carries, so a read model rebuilds from the journal alone (eligibility.ts). */
interface Facts {
  subject_ref: string;
  claim_code: string;
}

export type ClaimEvent =
  | ({ type: 'claim.issued'; decay_state: DecayState; ageing_at: number; stale_at: number; expires_at: string; lapses_at: number } & Omit<IssueClaim, 'lifetime_months' | 'ageing_fraction' | 'stale_fraction'>)
  | ({ type: 'claim.aged' } & Facts)
  | ({ type: 'claim.went_stale' } & Facts)
  | ({ type: 'claim.lapsed'; reason: LapseReason; detail: string | null; downgraded_to: EvidenceClass } & Facts)
  | ({ type: 'claim.superseded'; superseded_by: string } & Facts);

/** The decay state a claim's boundaries give at a time. */
export function decayAt(s: { ageing_at: number; stale_at: number; lapses_at: number }, now: number): DecayState {
  return now >= s.lapses_at ? 'lapsed' : now >= s.stale_at ? 'stale' : now >= s.ageing_at ? 'ageing' : 'current';
}

/** The boundaries of a claim issued with these figures. */
export function boundaries(evidenceDate: string, lifetimeMonths: number, ageing: number, stale: number): { ageing_at: number; stale_at: number; expires_at: string; lapses_at: number } {
  const from = dateMs(evidenceDate);
  const expires_at = addMonths(evidenceDate, lifetimeMonths);
  const lapses_at = dateMs(expires_at);
  const span = lapses_at - from;
  return { ageing_at: from + Math.round(span * ageing), stale_at: from + Math.round(span * stale), expires_at, lapses_at };
}

/** Freshness in 0..1: the share of the claim's lifetime still ahead of it; 0 once lapsed. */
export function freshness(evidenceMs: number, lapsesAt: number, now: number): number {
  if (now >= lapsesAt) return 0;
  const f = 1 - (now - evidenceMs) / (lapsesAt - evidenceMs);
  return f > 1 ? 1 : f;
}

const ORDER: Record<DecayState, number> = { current: 0, ageing: 1, stale: 2, lapsed: 3 };

function steps(s: ClaimState, target: DecayState): ClaimEvent[] {
  const out: ClaimEvent[] = [];
  const facts = { subject_ref: s.subject_ref, claim_code: s.claim_code };
  for (let i = ORDER[s.decay_state] + 1; i <= ORDER[target]; i++) {
    const next = DECAY_STATES[i];
    if (next === 'ageing') out.push({ type: 'claim.aged', ...facts });
    else if (next === 'stale') out.push({ type: 'claim.went_stale', ...facts });
    else if (next === 'lapsed') out.push({ type: 'claim.lapsed', reason: 'expired', detail: null, downgraded_to: 'e1_claimed', ...facts });
  }
  return out;
}

export const Claim = defineActor({
  kind: 'credentials_claim',
  prefix: CLAIM_PREFIX,
  creates: ['issue'],
  initial: (id: string, org: string): ClaimState => ({
    id,
    org,
    livemode: false,
    mocked: false,
    subject_ref: '',
    claim_code: '',
    framework_version: '',
    level: 1,
    evidence_class: 'e1_claimed',
    evidence_class_at_issue: 'e1_claimed',
    evidence_date: '',
    issuing_method: null,
    decay_state: 'current',
    decay_function: '',
    ageing_at: 0,
    stale_at: 0,
    expires_at: '',
    lapses_at: 0,
    verification_id: null,
    supersedes: null,
    superseded_by: null,
    lapse_reason: null,
    lapse_detail: null,
    lapsed_at: null,
    created_at: 0,
  }),
  decide: {
    issue(_s: ClaimState, cmd: IssueClaim, ctx): ClaimEvent[] {
      if (ctx.version > 0) return [];
      const { lifetime_months, ageing_fraction, stale_fraction, ...rest } = cmd;
      const b = boundaries(cmd.evidence_date, lifetime_months, ageing_fraction, stale_fraction);
      return [{ type: 'claim.issued', ...rest, ...b, decay_state: decayAt(b, ctx.now) }];
    },
    decay(s: ClaimState, _cmd: unknown, ctx): ClaimEvent[] {
      return steps(s, decayAt(s, ctx.now));
    },
    lapse(s: ClaimState, cmd: { reason: string }): ClaimEvent[] {
      if (s.decay_state === 'lapsed') throw new ApiError('conflict', `Claim ${s.id} is already lapsed; a lapsed claim stays as it is.`);
      return [{ type: 'claim.lapsed', reason: 'manual', detail: cmd.reason, downgraded_to: 'e1_claimed', subject_ref: s.subject_ref, claim_code: s.claim_code }];
    },
    supersede(s: ClaimState, cmd: { by: string }): ClaimEvent[] {
      if (s.superseded_by === cmd.by) return [];
      if (s.superseded_by !== null) throw new ApiError('conflict', `Claim ${s.id} is already superseded by ${s.superseded_by}.`);
      return [{ type: 'claim.superseded', superseded_by: cmd.by, subject_ref: s.subject_ref, claim_code: s.claim_code }];
    },
  },
  evolve(s: ClaimState, e: ClaimEvent, meta): ClaimState {
    switch (e.type) {
      case 'claim.issued': {
        const lapsed = e.decay_state === 'lapsed';
        return {
          ...s,
          livemode: e.livemode,
          mocked: e.mocked,
          subject_ref: e.subject_ref,
          claim_code: e.claim_code,
          framework_version: e.framework_version,
          level: e.level,
          evidence_class: lapsed ? 'e1_claimed' : e.evidence_class,
          evidence_class_at_issue: e.evidence_class,
          evidence_date: e.evidence_date,
          issuing_method: e.issuing_method,
          decay_state: e.decay_state,
          decay_function: e.decay_function,
          ageing_at: e.ageing_at,
          stale_at: e.stale_at,
          expires_at: e.expires_at,
          lapses_at: e.lapses_at,
          verification_id: e.verification_id,
          supersedes: e.supersedes,
          lapse_reason: lapsed ? 'expired' : null,
          lapsed_at: lapsed ? meta.at : null,
          created_at: meta.at,
        };
      }
      case 'claim.aged':
        return { ...s, decay_state: 'ageing' };
      case 'claim.went_stale':
        return { ...s, decay_state: 'stale' };
      case 'claim.lapsed':
        return { ...s, decay_state: 'lapsed', evidence_class: e.downgraded_to, lapse_reason: e.reason, lapse_detail: e.detail, lapsed_at: meta.at };
      case 'claim.superseded':
        return { ...s, superseded_by: e.superseded_by };
      default:
        return assertNever(e);
    }
  },
  view: (s: ClaimState) => (recordView('competence_claim', s.id, s.livemode, s.mocked, {
    subject_ref: s.subject_ref,
    claim_code: s.claim_code,
    framework_version: s.framework_version,
    level: s.level,
    evidence_class: s.evidence_class,
    evidence_class_at_issue: s.evidence_class_at_issue,
    downgraded: s.evidence_class !== s.evidence_class_at_issue,
    evidence_date: s.evidence_date,
    issuing_method: s.issuing_method,
    decay_state: s.decay_state,
    expires_at: s.expires_at,
    decay_function: s.decay_function,
    ageing_at: iso(s.ageing_at),
    stale_at: iso(s.stale_at),
    verification_id: s.verification_id,
    supersedes: s.supersedes,
    superseded_by: s.superseded_by,
    lapse_reason: s.lapse_reason,
    lapse_detail: s.lapse_detail,
    lapsed_at: s.lapsed_at === null ? null : iso(s.lapsed_at),
    created_at: iso(s.created_at),
  })),
  timers(s: ClaimState): TimerWish[] {
    switch (s.decay_state) {
      case 'current':
        return [{ name: 'decay', dueAt: s.ageing_at, command: 'decay' }];
      case 'ageing':
        return [{ name: 'decay', dueAt: s.stale_at, command: 'decay' }];
      case 'stale':
        return [{ name: 'decay', dueAt: s.lapses_at, command: 'decay' }];
      case 'lapsed':
        return [];
      default:
        return assertNever(s.decay_state);
    }
  },
  // A verified credential issues its claim (spec 2.5 claim_id): at least once, and `issue` on an
  // existing claim is a no-op. The verification operations (verifications.ts) also ask at once, so
  // the claim is there when the answer is.
  reactions: [
    {
      from: 'credentials_verification',
      events: ['credential_verification.verified'],
      command: 'issue',
      target(event) {
        const d = event.data as { claim_id: string | null; claim: IssueClaim | null };
        return d.claim && d.claim_id ? { id: d.claim_id, payload: d.claim } : undefined;
      },
    },
  ],
  indexes(s: ClaimState): IndexEntry[] {
    const k = sortKeyTime(s.created_at);
    // Two lists, fixed at issue: decay moves no list entry, so a million claims decay without index churn.
    return [
      { list: 'all', sortKey: k },
      { list: `subject:${s.subject_ref}`, sortKey: k },
    ];
  },
});
