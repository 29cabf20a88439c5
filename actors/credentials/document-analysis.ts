/**
 * Document analysis (credentials). Spec 2.5 (five separately scored factors: template, seal,
 * typography, serial structure, plausibility of issuance), 4.4 POST /v1/credentials/document_analyses
 * ("a confirmed forgery is escalated to the identity module, which decides on blocklisting");
 * reference 2.5 for the indicators. The analyser scores each factor (providers/document-analyser.ts);
 * the policy pack's thresholds give the outcome: forgery_confirmed when at least
 * forgery_confirmed_min_factors factors score below factor_forged_below, suspect when any factor
 * scores below factor_suspect_below, consistent otherwise. Forensic scores alone never contradict a
 * credential (reference 2.5): only the issuer's answer does.
 *
 * The document_url is write-only (spec 2.1): it is never stored, only its sha256 fingerprint.
 *
 * A confirmed forgery commits `document_analysis.forgery_confirmed` { subject_ref,
 * document_analysis_id, detail, livemode } in the same commit as the analysis; the identity module reacts to it
 * by opening a blocklist decision, which a person in identity takes.
 *
 * outcome   command  condition                  event(s)                                                        next
 * --------  -------  -------------------------  --------------------------------------------------------------  -----------------
 * (none)    create   scores under the rule      document_analysis.completed [, document_analysis.forgery_confirmed]  consistent | suspect | forgery_confirmed
 * any       create   -                          - (already analysed)                                            (unchanged)
 */
import { defineActor, type IndexEntry, iso, sortKeyTime } from '../../runtime/index.ts';
import { assertNever, factsOf, recordView } from '../../kernel/index.ts';
import { DOCUMENT_ANALYSIS_PREFIX } from './ids.ts';
import type { Factor, FactorScore } from './providers/document-analyser.ts';

export const ANALYSIS_OUTCOMES = ['consistent', 'suspect', 'forgery_confirmed'] as const;
export type AnalysisOutcome = (typeof ANALYSIS_OUTCOMES)[number];

/** The journal event identity reacts to (fixed contract). */
export const FORGERY_CONFIRMED = 'document_analysis.forgery_confirmed';

export interface CreateAnalysis {
  subject_ref: string;
  credential_kind: string;
  document_fingerprint: string;
  factors: Record<Factor, FactorScore>;
  outcome: AnalysisOutcome;
  detail: string;
  policy_version: string;
  livemode: boolean;
  mocked: boolean;
}

export interface AnalysisState extends CreateAnalysis {
  id: string;
  org: string;
  escalated: boolean;
  created_at: number;
}

export type AnalysisEvent =
  | ({ type: 'document_analysis.completed' } & CreateAnalysis)
  | { type: 'document_analysis.forgery_confirmed'; subject_ref: string; document_analysis_id: string; detail: string; livemode: boolean };

export const DocumentAnalysis = defineActor({
  kind: 'credentials_document_analysis',
  prefix: DOCUMENT_ANALYSIS_PREFIX,
  creates: ['create'],
  initial: (id: string, org: string): AnalysisState => ({
    id,
    org,
    livemode: false,
    mocked: false,
    subject_ref: '',
    credential_kind: '',
    document_fingerprint: '',
    factors: {} as Record<Factor, FactorScore>,
    outcome: 'consistent',
    detail: '',
    policy_version: '',
    escalated: false,
    created_at: 0,
  }),
  decide: {
    create(_s: AnalysisState, cmd: CreateAnalysis, ctx): AnalysisEvent[] {
      if (ctx.version > 0) return [];
      const done: AnalysisEvent = { type: 'document_analysis.completed', ...cmd };
      if (cmd.outcome !== 'forgery_confirmed') return [done];
      return [done, { type: FORGERY_CONFIRMED, subject_ref: cmd.subject_ref, document_analysis_id: ctx.id, detail: cmd.detail, livemode: cmd.livemode }];
    },
  },
  evolve(s: AnalysisState, e: AnalysisEvent, meta): AnalysisState {
    switch (e.type) {
      case 'document_analysis.completed':
        return { ...s, ...factsOf(e), created_at: meta.at };
      case 'document_analysis.forgery_confirmed':
        return { ...s, escalated: true };
      default:
        return assertNever(e);
    }
  },
  view: (s: AnalysisState) => (recordView('document_analysis', s.id, s.livemode, s.mocked, {
    subject_ref: s.subject_ref,
    credential_kind: s.credential_kind,
    document_fingerprint: s.document_fingerprint,
    factors: s.factors,
    outcome: s.outcome,
    detail: s.detail,
    escalated_to_identity: s.escalated,
    policy_version: s.policy_version,
    created_at: iso(s.created_at),
  })),
  indexes(s: AnalysisState): IndexEntry[] {
    const k = sortKeyTime(s.created_at);
    return [
      { list: 'all', sortKey: k },
      { list: `subject:${s.subject_ref}`, sortKey: k },
    ];
  },
});
