/**
 * The credentials module's operations (spec 4.4): what a route does beyond one actor's command. Each
 * is a short sequence of named steps: check the request against the policy pack and the frameworks,
 * check consent (spec 1 rule 7: no consent, no query) before any issuer is asked, reuse evidence
 * inside the issuer's validity period, query the issuer through its provider, then commit through
 * the actor that owns the record. Follow-on records (the claim a verification issues, the licence a
 * verified licence makes, the old claim a new one supersedes) are asked at once with derived ids, so
 * a retried request lands on the same records; reactions cover the ones that arise later (a portal's
 * answer by reminder).
 */
import { createHash } from 'node:crypto';
import { ApiError, type Caller, createdId, createDedupe, errorEntry, fieldError, type Platform, serviceKey, type ValidationEntry, validationError } from '../../kernel/index.ts';
import { consentToken, type ConsentFacts, identityGate } from '../identity/index.ts';
import { Appeal, type AppealState } from './appeal.ts';
import { Claim, type ClaimState, type IssueClaim } from './claim.ts';
import { addDays, addMonths, dateMs, dateOf } from './dates.ts';
import { Disclosure } from './disclosure.ts';
import { type AnalysisOutcome, DocumentAnalysis } from './document-analysis.ts';
import { EligibilityModel } from './eligibility.ts';
import { APPEAL_PREFIX, CLAIM_PREFIX, claimIdOfReattestation, DISCLOSURE_PREFIX, DOCUMENT_ANALYSIS_PREFIX, licenceIdOf, REATTESTATION_PREFIX, VERIFICATION_PREFIX, WALLET_PREFIX } from './ids.ts';
import { Licence } from './licence.ts';
import type { ActivePolicy, EvidenceClass, IssuerEntry, Method } from './policy.ts';
import { type DocumentAnalyser, FACTORS } from './providers/document-analyser.ts';
import type { IssuerProvider } from './providers/issuers.ts';
import { Reattestation } from './reattestation.ts';
import { type ClaimSeed, type LicenceConfirmed, Verification, type VerificationState, evidenceKey } from './verification.ts';
import { Wallet, type WalletState } from './wallet.ts';

export const CREDENTIALS = serviceKey<CredentialsService>('credentials');
export const credentialsService = (platform: Platform): CredentialsService => platform.services.require(CREDENTIALS);

export interface CreateVerificationBody {
  subject_ref: string;
  issuer_id: string;
  credential_kind: string;
  consent_token_id?: string;
  credential_reference?: string;
}

export interface CreateClaimBody {
  subject_ref: string;
  claim_code: string;
  level: number;
  evidence_class: EvidenceClass;
  evidence_date: string;
  issuing_method?: Method;
  supersedes?: string;
}

const refuseIf = (entries: ValidationEntry[], count = 1) => {
  if (entries.length) throw validationError(entries, count);
};
const sys = { principal: 'system', lane: 'system' as const, noReply: true };

export class CredentialsService {
  readonly eligibility: EligibilityModel;

  constructor(
    readonly platform: Platform,
    readonly policy: ActivePolicy,
    readonly issuers: IssuerProvider,
    readonly analyser: DocumentAnalyser,
  ) {
    this.eligibility = new EligibilityModel(platform, policy);
  }

  start(): void {
    this.eligibility.start();
  }

  stop(): Promise<void> {
    return this.eligibility.stop();
  }

  private get system() {
    return this.platform.system;
  }

  private now(): number {
    return this.platform.clock.now();
  }

  /**
   * Spec 1 rule 7, 7 (422 consent_token_missing): an active consent token of this organisation and
   * subject, for a purpose the pack lists as covering this use. CheckKind names no credential check,
   * so the purpose is what binds it (docs/gaps.md#credentials).
   */
  async requireConsent(org: string, subjectRef: string, tokenId: string | undefined, purposes: readonly string[], what: string): Promise<ConsentFacts> {
    const missing = (why: string) => new ApiError('consent_token_missing', `No verifiable consent token for ${what}: ${why}. It cannot be attested away.`);
    if (tokenId === undefined) throw missing('consent_token_id is required');
    const t = await consentToken(this.platform, org, tokenId);
    if (!t) throw missing(`no consent token ${tokenId.slice(0, 80)} in this organisation`);
    if (t.status !== 'active') throw missing(`consent token ${t.id} is ${t.status}`);
    if (t.subject_ref !== subjectRef) throw missing(`consent token ${t.id} was given by another subject`);
    if (!purposes.includes(t.purpose)) throw missing(`consent token ${t.id} is for ${t.purpose}, which covers no ${what} (purposes that do: ${purposes.join(', ')})`);
    return t;
  }

  issuer(id: string): IssuerEntry | undefined {
    return this.policy.issuers.get(id);
  }

  claimSeed(credentialKind: string, evidenceClass: EvidenceClass): ClaimSeed {
    const k = this.policy.pack.credential_kinds[credentialKind];
    const d = this.policy.pack.decay;
    return {
      subject_ref: '',
      claim_code: k.claim_code,
      framework_version: this.policy.frameworks.pack.version,
      level: k.level,
      evidence_class: evidenceClass,
      issuing_method: null,
      decay_function: d.function,
      lifetime_months: d.lifetime_months[evidenceClass],
      ageing_fraction: d.ageing_at,
      stale_fraction: d.stale_at,
    };
  }

  // ---- credential verifications (spec 2.5, 3, 4.4) ----

  async createVerification(body: CreateVerificationBody, caller: Caller): Promise<unknown> {
    const issuer = this.issuer(body.issuer_id);
    const entries: ValidationEntry[] = [];
    if (!issuer) entries.push(errorEntry('/issuer_id', 'unknown_issuer', `No issuer ${body.issuer_id.slice(0, 80)}; GET /v1/credentials/issuers lists them.`));
    else if (!issuer.credential_kinds.includes(body.credential_kind))
      entries.push(errorEntry('/credential_kind', 'credential_kind_not_issued', `${issuer.name} does not issue ${body.credential_kind.slice(0, 80)}; it issues ${issuer.credential_kinds.join(', ')}.`));
    refuseIf(entries, 1);
    const iss = issuer!;
    const id = createdId(caller, VERIFICATION_PREFIX);
    const existing = await this.existing<VerificationState>(Verification, id, caller.org);
    if (existing) return this.system.get(Verification, id, caller.org);

    // Rule 7: consent before anything is queried.
    const token = await this.requireConsent(caller.org, body.subject_ref, body.consent_token_id, this.policy.pack.consent.verification_purposes, 'a credential verification');
    const passport = identityGate(this.platform).livePassport(caller.org, body.subject_ref);
    const now = this.now();
    const kind = this.policy.pack.credential_kinds[body.credential_kind];
    const seed = { ...this.claimSeed(body.credential_kind, 'e4_verified_with_issuer'), subject_ref: body.subject_ref, issuing_method: iss.method };
    const reference = body.credential_reference ?? null;
    const base = {
      subject_ref: body.subject_ref, issuer_id: iss.id, issuer_name: iss.name, method: iss.method, credential_kind: body.credential_kind, credential_reference: reference,
      consent_token_id: token.id, identity_assurance: passport ? ('verified' as const) : ('attested' as const), passport_id: passport, livemode: caller.livemode,
      claim: seed, licence: kind.licence ?? null,
    };

    // Spec 2.5 cached: evidence inside the issuer's validity period is reused, with no second charge.
    const reused = await this.reusableEvidence(caller.org, body.subject_ref, iss, body.credential_kind, reference, now);
    const cmd = reused
      ? { ...base, mocked: reused.mocked, charge: { amount: 0, currency: iss.fee.currency }, cached_from: { verification_id: reused.id, evidence_date: reused.evidence_date!, claim_id: reused.claim_id }, answer: null, answer_at: null, service_level_due_at: null }
      : await this.query(iss, body, reference, now, base);
    const view = (await this.system.ask(Verification, id, 'create', cmd, { ...caller, dedupeId: createDedupe(caller) })) as { outcome: string; claim_id: string | null };
    if (view.outcome === 'verified' && !reused) await this.followOn(caller.org, id);
    return view;
  }

  private async query(iss: IssuerEntry, body: CreateVerificationBody, reference: string | null, now: number, base: object) {
    const r = await this.issuers.query({ issuer: iss, subject_ref: body.subject_ref, credential_kind: body.credential_kind, credential_reference: reference, now });
    const due = iss.method === 'register_api' ? null : dateMs(dateOf(addDays(now, iss.service_level_days))) + 86_400_000;
    return { ...base, mocked: r.mocked, charge: r.charge, cached_from: null, answer: r.answer, answer_at: r.answer_at, service_level_due_at: due } as Parameters<(typeof Verification)['decide']['create']>[1];
  }

  /** The latest first-hand verified evidence of this subject, issuer, kind and reference, if still inside the validity period. */
  private async reusableEvidence(org: string, subjectRef: string, iss: IssuerEntry, kind: string, reference: string | null, now: number): Promise<VerificationState | undefined> {
    const page = await this.system.listIds(Verification, org, `evidence:${evidenceKey(subjectRef, iss.id, kind, reference)}`, { limit: 1, order: 'desc' });
    const last = page.ids[0];
    if (!last) return undefined;
    const s = await this.system.state<VerificationState>(Verification, last, org);
    if (s.outcome !== 'verified' || !s.evidence_date) return undefined;
    return now < addDays(dateMs(s.evidence_date), iss.evidence_valid_days) ? s : undefined;
  }

  /** The claim and licences of a verified verification, asked at once (the reactions repeat them harmlessly). */
  async followOn(org: string, verificationId: string): Promise<void> {
    const s = await this.system.state<VerificationState>(Verification, verificationId, org);
    if (s.outcome !== 'verified' || s.cached || !s.claim_id || !s.claim || !s.evidence_date) return;
    const claim: IssueClaim = { ...s.claim, evidence_date: s.evidence_date, verification_id: s.id, supersedes: null, livemode: s.livemode, mocked: s.mocked };
    const opts = { org, ...sys, dedupeId: `verified:${s.id}` };
    await this.system.ask(Claim, s.claim_id, 'issue', claim, opts);
    if (s.licence) {
      for (const occupation of s.licence.occupation_codes) {
        const lic = licenceFacts(s, occupation);
        await this.system.ask(Licence, licenceIdOf(org, s.subject_ref, occupation, s.issuer_id), 'record', lic, opts);
      }
    }
  }

  async verificationOperation(id: string, op: 'verify' | 'contradict' | 'mark_unverified', body: Record<string, unknown>, caller: Caller): Promise<unknown> {
    if (op === 'verify' && typeof body.evidence_date === 'string') {
      const ms = dateMs(body.evidence_date);
      refuseIf(Number.isNaN(ms) ? [errorEntry('/evidence_date', 'invalid_date', 'evidence_date must be a date (YYYY-MM-DD).')] : ms > this.now() ? [errorEntry('/evidence_date', 'in_future', 'evidence_date cannot be after today.')] : []);
    }
    const view = (await this.system.ask(Verification, id, op, body, caller)) as { outcome: string };
    if (view.outcome === 'verified') await this.followOn(caller.org, id);
    return view;
  }

  // ---- competence claims (spec 2.5, 3) ----

  /** Checks a claim's code, level, evidence class and date; the entries name every failing field. */
  private claimEntries(body: { claim_code?: string; level?: number; evidence_class?: EvidenceClass; evidence_date: string }, evidenceClass: EvidenceClass): ValidationEntry[] {
    const entries: ValidationEntry[] = [];
    if (body.claim_code !== undefined && !this.policy.claimCodes.has(body.claim_code)) entries.push(errorEntry('/claim_code', 'unknown_claim_code', `${body.claim_code.slice(0, 80)} is not a claim code of any framework; GET /v1/credentials/frameworks lists them.`));
    if (evidenceClass === 'e4_verified_with_issuer')
      entries.push(errorEntry('/evidence_class', 'evidence_class_reserved', 'e4_verified_with_issuer is issued only by a verified credential verification (POST /v1/credentials/verifications).'));
    const ms = dateMs(body.evidence_date);
    if (Number.isNaN(ms)) entries.push(errorEntry('/evidence_date', 'invalid_date', 'evidence_date must be a date (YYYY-MM-DD).'));
    else if (ms > this.now()) entries.push(errorEntry('/evidence_date', 'in_future', 'evidence_date cannot be after today.'));
    else {
      const d = this.policy.pack.decay;
      const months = d.lifetime_months[evidenceClass];
      if (months !== undefined) {
        const expires = dateMs(addMonths(body.evidence_date, months));
        if (expires <= this.now()) entries.push(errorEntry('/evidence_date', 'evidence_expired', `Evidence of ${body.evidence_date} at ${evidenceClass} lapsed on ${dateOf(expires)}; a claim cannot be made already lapsed.`));
      }
    }
    return entries;
  }

  async createClaim(body: CreateClaimBody, caller: Caller): Promise<unknown> {
    refuseIf(this.claimEntries(body, body.evidence_class));
    const id = createdId(caller, CLAIM_PREFIX);
    if (body.supersedes !== undefined) await this.checkSupersedable(body.supersedes, body.subject_ref, body.claim_code, caller.org, id);
    const d = this.policy.pack.decay;
    const cmd: IssueClaim = {
      subject_ref: body.subject_ref, claim_code: body.claim_code, framework_version: this.policy.frameworks.pack.version, level: body.level, evidence_class: body.evidence_class,
      evidence_date: body.evidence_date, issuing_method: body.issuing_method ?? null, decay_function: d.function, lifetime_months: d.lifetime_months[body.evidence_class],
      ageing_fraction: d.ageing_at, stale_fraction: d.stale_at, verification_id: null, supersedes: body.supersedes ?? null, livemode: caller.livemode, mocked: false,
    };
    const view = await this.system.ask(Claim, id, 'issue', cmd, { ...caller, dedupeId: createDedupe(caller) });
    if (body.supersedes !== undefined) await this.system.ask(Claim, body.supersedes, 'supersede', { by: id }, { ...caller, dedupeId: `supersede:${id}` });
    return body.supersedes !== undefined ? this.system.get(Claim, id, caller.org) : view;
  }

  /** A claim supersedes only a claim of the same subject and code that nothing superseded yet (spec 2.5). */
  private async checkSupersedable(oldId: string, subjectRef: string, code: string, org: string, by: string): Promise<ClaimState> {
    if (!oldId.startsWith(CLAIM_PREFIX)) throw fieldError('/supersedes', 'invalid_id', 'supersedes must name a competence claim (proof_academic_claim_...).');
    const old = await this.system.state<ClaimState>(Claim, oldId, org).catch((e: unknown) => {
      if (e instanceof ApiError && e.code === 'not_found') throw fieldError('/supersedes', 'unknown_claim', `No competence claim ${oldId.slice(0, 80)}.`);
      throw e;
    });
    const entries: ValidationEntry[] = [];
    if (old.subject_ref !== subjectRef) entries.push(errorEntry('/supersedes', 'other_subject', `Claim ${old.id} is another subject's.`));
    if (old.claim_code !== code) entries.push(errorEntry('/supersedes', 'other_claim_code', `Claim ${old.id} is for ${old.claim_code}, not ${code}.`));
    refuseIf(entries);
    if (old.superseded_by !== null && old.superseded_by !== by) throw new ApiError('conflict', `Claim ${old.id} is already superseded by ${old.superseded_by}.`);
    return old;
  }

  // ---- re-attestations ----

  async createReattestation(body: { claim_id: string; evidence_class: EvidenceClass; evidence_date: string; attested_by: string; level?: number; note?: string }, caller: Caller): Promise<unknown> {
    const id = createdId(caller, REATTESTATION_PREFIX);
    const entries = this.claimEntries({ evidence_date: body.evidence_date }, body.evidence_class);
    if (!body.claim_id.startsWith(CLAIM_PREFIX)) entries.unshift(errorEntry('/claim_id', 'invalid_id', 'claim_id must name a competence claim (proof_academic_claim_...).'));
    refuseIf(entries, 1);
    const old = await this.system.state<ClaimState>(Claim, body.claim_id, caller.org);
    const newId = claimIdOfReattestation(id);
    if (old.superseded_by !== null && old.superseded_by !== newId) throw new ApiError('conflict', `Claim ${old.id} is already superseded by ${old.superseded_by}; re-attest the claim that superseded it.`);
    const d = this.policy.pack.decay;
    const opts = { ...caller, dedupeId: createDedupe(caller) };
    await this.system.ask(Claim, newId, 'issue', {
      subject_ref: old.subject_ref, claim_code: old.claim_code, framework_version: this.policy.frameworks.pack.version, level: body.level ?? old.level, evidence_class: body.evidence_class,
      evidence_date: body.evidence_date, issuing_method: null, decay_function: d.function, lifetime_months: d.lifetime_months[body.evidence_class], ageing_fraction: d.ageing_at,
      stale_fraction: d.stale_at, verification_id: null, supersedes: old.id, livemode: caller.livemode, mocked: false,
    } satisfies IssueClaim, opts);
    await this.system.ask(Claim, old.id, 'supersede', { by: newId }, { ...caller, dedupeId: `supersede:${newId}` });
    return this.system.ask(Reattestation, id, 'create', {
      subject_ref: old.subject_ref, claim_id: old.id, new_claim_id: newId, claim_code: old.claim_code, evidence_class: body.evidence_class, evidence_date: body.evidence_date,
      attested_by: body.attested_by, note: body.note ?? null, livemode: caller.livemode,
    }, opts);
  }

  // ---- document analyses (spec 2.5, 4.4) ----

  async createAnalysis(body: { subject_ref: string; document_url: string; credential_kind: string }, caller: Caller): Promise<unknown> {
    if (!this.policy.pack.credential_kinds[body.credential_kind])
      throw fieldError('/credential_kind', 'unknown_credential_kind', `${body.credential_kind.slice(0, 80)} is not a credential kind of the policy pack; GET /v1/credentials/issuers lists them.`);
    const id = createdId(caller, DOCUMENT_ANALYSIS_PREFIX);
    if (await this.existing(DocumentAnalysis, id, caller.org)) return this.system.get(DocumentAnalysis, id, caller.org);
    const out = await this.analyser.analyse({ document_url: body.document_url, credential_kind: body.credential_kind });
    const t = this.policy.pack.document_analysis;
    const forged = FACTORS.filter((f) => out.factors[f].score < t.factor_forged_below);
    const suspect = FACTORS.filter((f) => out.factors[f].score < t.factor_suspect_below);
    const outcome: AnalysisOutcome = forged.length >= t.forgery_confirmed_min_factors ? 'forgery_confirmed' : suspect.length > 0 ? 'suspect' : 'consistent';
    const detail =
      outcome === 'forgery_confirmed'
        ? `Forgery confirmed: ${forged.length} of 5 factors below ${t.factor_forged_below} (${forged.join(', ')}).`
        : outcome === 'suspect'
          ? `Suspect: ${suspect.join(', ')} below ${t.factor_suspect_below}; only the issuer's answer can contradict the credential.`
          : 'Every factor is consistent with a genuine exemplar.';
    return this.system.ask(DocumentAnalysis, id, 'create', {
      subject_ref: body.subject_ref, credential_kind: body.credential_kind, document_fingerprint: `sha256:${createHash('sha256').update(body.document_url).digest('hex')}`,
      factors: out.factors, outcome, detail, policy_version: this.policy.pack.version, livemode: caller.livemode, mocked: out.mocked,
    }, { ...caller, dedupeId: createDedupe(caller) });
  }

  // ---- wallets and disclosures ----

  /** Every claim id must be a claim of this organisation and subject; entries name each one that is not. */
  private async checkClaims(org: string, subjectRef: string, ids: readonly string[], field: string): Promise<void> {
    const entries: ValidationEntry[] = [];
    const seen = new Set<string>();
    for (const [i, id] of ids.entries()) {
      const at = `${field}/${i}`;
      if (seen.has(id)) {
        entries.push(errorEntry(at, 'duplicate', `${id.slice(0, 80)} is named twice.`, i + 1));
        continue;
      }
      seen.add(id);
      const s = id.startsWith(CLAIM_PREFIX) ? await this.existing<ClaimState>(Claim, id, org) : undefined;
      if (!s) entries.push(errorEntry(at, 'unknown_claim', `No competence claim ${id.slice(0, 80)}.`, i + 1));
      else if (s.subject_ref !== subjectRef) entries.push(errorEntry(at, 'other_subject', `Claim ${id} is another subject's.`, i + 1));
    }
    refuseIf(entries, ids.length);
  }

  async createWallet(body: { subject_ref: string; claim_ids: string[] }, caller: Caller): Promise<unknown> {
    await this.checkClaims(caller.org, body.subject_ref, body.claim_ids, '/claim_ids');
    const id = createdId(caller, WALLET_PREFIX);
    await this.system.ask(Wallet, id, 'create', { subject_ref: body.subject_ref, claim_ids: body.claim_ids, livemode: caller.livemode }, { ...caller, dedupeId: createDedupe(caller) });
    return this.walletView(id, caller.org);
  }

  /** A wallet with each of its claims as it stands now. */
  async walletView(id: string, org: string): Promise<unknown> {
    const w = await this.system.state<WalletState>(Wallet, id, org);
    const view = (await this.system.get(Wallet, id, org)) as Record<string, unknown>;
    const claims = await Promise.all(w.claim_ids.map((c) => this.system.get(Claim, c, org)));
    return { ...view, claims };
  }

  async createDisclosure(body: { subject_ref: string; consent_token_id?: string; recipient: string; wallet_id?: string; claim_ids?: string[] }, caller: Caller): Promise<unknown> {
    const entries: ValidationEntry[] = [];
    if ((body.wallet_id === undefined) === (body.claim_ids === undefined)) entries.push(errorEntry('/wallet_id', 'one_of', 'Name either wallet_id or claim_ids.'));
    refuseIf(entries);
    let claimIds = body.claim_ids ?? [];
    if (body.wallet_id !== undefined) {
      const w = body.wallet_id.startsWith(WALLET_PREFIX) ? await this.existing<WalletState>(Wallet, body.wallet_id, caller.org) : undefined;
      if (!w) throw fieldError('/wallet_id', 'unknown_wallet', `No wallet ${body.wallet_id.slice(0, 80)}.`);
      if (w.subject_ref !== body.subject_ref) throw fieldError('/wallet_id', 'other_subject', `Wallet ${w.id} is another subject's.`);
      claimIds = w.claim_ids;
    } else await this.checkClaims(caller.org, body.subject_ref, claimIds, '/claim_ids');
    const token = await this.requireConsent(caller.org, body.subject_ref, body.consent_token_id, this.policy.pack.consent.disclosure_purposes, 'a disclosure');
    const id = createdId(caller, DISCLOSURE_PREFIX);
    return this.system.ask(Disclosure, id, 'create', {
      subject_ref: body.subject_ref, wallet_id: body.wallet_id ?? null, claim_ids: claimIds, recipient: body.recipient, purpose: token.purpose, consent_token_id: token.id, livemode: caller.livemode,
    }, { ...caller, dedupeId: createDedupe(caller) });
  }

  // ---- appeals ----

  async fileAppeal(body: { verification_id?: string; claim_id?: string; statement: string }, caller: Caller): Promise<unknown> {
    if ((body.verification_id === undefined) === (body.claim_id === undefined))
      throw fieldError('/verification_id', 'one_of', 'Name either verification_id (a contradicted verification) or claim_id (a lapsed claim).');
    const id = createdId(caller, APPEAL_PREFIX);
    if (await this.existing<AppealState>(Appeal, id, caller.org)) return this.system.get(Appeal, id, caller.org);
    let subject: string;
    if (body.verification_id !== undefined) {
      if (!body.verification_id.startsWith(VERIFICATION_PREFIX)) throw fieldError('/verification_id', 'invalid_id', 'verification_id must name a credential verification.');
      const v = await this.system.state<VerificationState>(Verification, body.verification_id, caller.org);
      if (v.outcome !== 'contradicted') throw new ApiError('conflict', `Credential verification ${v.id} is ${v.outcome}; only a contradicted verification can be appealed.`);
      subject = v.subject_ref;
    } else {
      if (!body.claim_id!.startsWith(CLAIM_PREFIX)) throw fieldError('/claim_id', 'invalid_id', 'claim_id must name a competence claim.');
      const c = await this.system.state<ClaimState>(Claim, body.claim_id!, caller.org);
      if (c.decay_state !== 'lapsed') throw new ApiError('conflict', `Claim ${c.id} is ${c.decay_state}; only a lapsed claim can be appealed.`);
      subject = c.subject_ref;
    }
    return this.system.ask(Appeal, id, 'file', {
      subject_ref: subject, ground: body.verification_id !== undefined ? 'contradiction' : 'lapse', verification_id: body.verification_id ?? null, claim_id: body.claim_id ?? null,
      statement: body.statement, livemode: caller.livemode,
    }, { ...caller, dedupeId: createDedupe(caller) });
  }

  // ---- readiness ----

  readiness(): unknown {
    const p = this.policy;
    return {
      object: 'readiness',
      module: 'credentials',
      ready: true,
      policy: { version: p.pack.version, hash: p.policy.hash, legal_approval_reference: p.pack.legal_approval_reference },
      frameworks: { version: p.frameworks.pack.version, hash: p.frameworks.hash, occupations: p.frameworks.pack.frameworks.length },
      issuers: p.pack.issuers.map((i) => ({ id: i.id, method: i.method, mode: 'sandbox' })),
      licensed_occupations: Object.keys(p.pack.licensed_occupations),
      eligibility_model: this.eligibility.size,
    };
  }

  /** The state of a record, or undefined when it does not exist (a record of another organisation refuses). */
  async existing<S>(def: Parameters<Platform['system']['state']>[0], id: string, org: string): Promise<S | undefined> {
    try {
      return await this.system.state<S>(def, id, org);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'not_found') return undefined;
      throw e;
    }
  }
}

function licenceFacts(s: VerificationState, occupation: string): Omit<LicenceConfirmed, 'type'> {
  return {
    verification_id: s.id, subject_ref: s.subject_ref, occupation_code: occupation, issuer_id: s.issuer_id, issuer_name: s.issuer_name, licence_kind: s.credential_kind,
    valid_from: s.evidence_date!, expires_at: addMonths(s.evidence_date!, s.licence!.validity_months), livemode: s.livemode, mocked: s.mocked,
  };
}
