/**
 * Document analysis operations (spec 2.5, 4.4 POST /v1/credentials/document_analyses; reference
 * 2.5): the analyser scores each factor (providers/document-analyser.ts) and the policy pack's
 * thresholds give the outcome: forgery_confirmed when at least forgery_confirmed_min_factors factors
 * score below factor_forged_below, suspect when any factor scores below factor_suspect_below,
 * consistent otherwise. Only the document's sha256 fingerprint is kept (spec 2.1: document_url is
 * write-only). The analysis's rules, and the escalation of a confirmed forgery, are
 * document-analysis.ts.
 */
import { createHash } from 'node:crypto';
import { type Caller, createdId, createDedupe, fieldError, type Platform } from '../../kernel/index.ts';
import { existing } from './checks.ts';
import { type AnalysisOutcome, DocumentAnalysis } from './document-analysis.ts';
import { DOCUMENT_ANALYSIS_PREFIX } from './ids.ts';
import { FACTORS, type Factor, type FactorScore } from './providers/document-analyser.ts';
import type { ActivePolicy } from './policy.ts';
import { credentialsService } from './service.ts';

/** The outcome the pack's thresholds give the factor scores, and what it says. */
function judge(policy: ActivePolicy, factors: Record<Factor, FactorScore>): { outcome: AnalysisOutcome; detail: string } {
  const t = policy.pack.document_analysis;
  const forged = FACTORS.filter((f) => factors[f].score < t.factor_forged_below);
  const suspect = FACTORS.filter((f) => factors[f].score < t.factor_suspect_below);
  if (forged.length >= t.forgery_confirmed_min_factors) return { outcome: 'forgery_confirmed', detail: `Forgery confirmed: ${forged.length} of 5 factors below ${t.factor_forged_below} (${forged.join(', ')}).` };
  if (suspect.length > 0) return { outcome: 'suspect', detail: `Suspect: ${suspect.join(', ')} below ${t.factor_suspect_below}; only the issuer's answer can contradict the credential.` };
  return { outcome: 'consistent', detail: 'Every factor is consistent with a genuine exemplar.' };
}

export async function createAnalysis(platform: Platform, caller: Caller, body: { subject_ref: string; document_url: string; credential_kind: string }): Promise<unknown> {
  const { system } = platform;
  const { policy, analyser } = credentialsService(platform);
  if (!policy.pack.credential_kinds[body.credential_kind])
    throw fieldError('/credential_kind', 'unknown_credential_kind', `${body.credential_kind.slice(0, 80)} is not a credential kind of the policy pack; GET /v1/credentials/issuers lists them.`);
  const id = createdId(caller, DOCUMENT_ANALYSIS_PREFIX);
  if (await existing(platform, DocumentAnalysis, id, caller.org)) return system.get(DocumentAnalysis, id, caller.org);
  const out = await analyser.analyse({ document_url: body.document_url, credential_kind: body.credential_kind });
  const { outcome, detail } = judge(policy, out.factors);
  return system.ask(DocumentAnalysis, id, 'create', {
    subject_ref: body.subject_ref, credential_kind: body.credential_kind, document_fingerprint: `sha256:${createHash('sha256').update(body.document_url).digest('hex')}`,
    factors: out.factors, outcome, detail, policy_version: policy.pack.version, livemode: caller.livemode, mocked: out.mocked,
  }, { ...caller, dedupeId: createDedupe(caller) });
}
