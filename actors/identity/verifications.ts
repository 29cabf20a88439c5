/**
 * The identity verification operations (spec 3 "Identity verification", rules 6, 7, 8; reference
 * 1.4; 4.3). Running one: check the claims' formats (a bad format is refused before any source is
 * asked: lookups are billed even when they fail), decide whether anything may be asked at all (an
 * active consent token of this organisation, subject and purpose covering every check the claims
 * call for, and no active blocklist entry; otherwise the verification is recorded blocked and
 * nothing is queried), then ask each source once, turn the answers into results without keeping a
 * clear identifier, and hand them to the verification actor, which applies the evidence rule; a
 * resolved one issues its passport at once, and an identifier digest another subject presented
 * makes a merge candidate. Later: collecting the answers a source gives late
 * (verification.collection_due, which the identity service follows), and the decisions a person
 * takes (resolve, mark_unresolved, block), each recorded with who took it and why.
 */
import { ApiError, type Caller, derivedId, errorEntry, type Platform, type ValidationEntry, validationError } from '../../kernel/index.ts';
import { isBlocklisted } from './blocklist-entries.ts';
import { BlocklistEntry, type CreateEntry } from './blocklist-entry.ts';
import { type ConsentState, consentActive } from './consent-token.ts';
import { readToken } from './consent-tokens.ts';
import type { SourceResult } from './evidence.ts';
import { BLOCKLIST_PREFIX, passportIdOf } from './ids.ts';
import { candidateIdOf, MergeCandidate } from './merge-candidate.ts';
import { directorResults, isOrganisationClaims, organisationClaimsRefused, registrationNumber } from './organisations.ts';
import { issuePassport } from './passports.ts';
import { mask, NIN, BVN, nameTokens, normalisePhone, VNIN, type Digester } from './personal-data.ts';
import { ACTIVE_POLICY, type AssuranceLevel, type CheckKind, defaultTarget, DELIVERED_LEVELS, isSourceCheck, NOT_DELIVERED, type SourceCheck } from './policy.ts';
import type { IdentitySource, SourceAnswer } from './providers/index.ts';
import { identityService } from './service.ts';
import { type Claims, clearMatcher, digestMatcher, resultsOf } from './source-answers.ts';
import type { VaultEntry } from './vault.ts';
import { type BlockedBecause, type BlockScope, type CreateVerification, type Origin, Verification } from './verification.ts';

export interface VerificationRequest {
  subject_ref: string;
  /** Absent: 422 consent_token_missing (consentBar). */
  consent_token_id?: string;
  claims: Claims;
  origin?: Origin;
  target_assurance?: string;
  purpose?: string;
}

/** What the claims call for, each identifier normalised (still in clear: used once, then dropped). */
export interface Plan {
  checks: CheckKind[];
  queries: { source: IdentitySource; check: SourceCheck; identifier: string; kept: boolean }[];
  target: AssuranceLevel | undefined;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** planChecks' helpers, at module level: a closure made per request is named by tsx each time. */
function ask(sources: readonly IdentitySource[], queries: Plan['queries'], checks: Set<CheckKind>, check: SourceCheck, identifier: string, kept: boolean): void {
  const source = sources.find((s) => s.check === check);
  if (!source) throw new ApiError('unavailable', `No ${check} source is configured.`);
  queries.push({ source, check, identifier, kept });
  checks.add(check);
}

/** Format checks (reference 1.1: 11 digits, no checksum; vNIN 2+12+2; phones to E.164). Throws 400 naming every bad field. */
export function planChecks(req: VerificationRequest, sources: readonly IdentitySource[], now: number): Plan {
  const c = req.claims ?? {};
  const bad: ValidationEntry[] = [];
  let target: AssuranceLevel | undefined;
  if (req.target_assurance !== undefined) {
    if (NOT_DELIVERED[req.target_assurance]) bad.push(errorEntry('/target_assurance', 'assurance_not_delivered', NOT_DELIVERED[req.target_assurance]!));
    else if (!DELIVERED_LEVELS.includes(req.target_assurance as AssuranceLevel)) bad.push(errorEntry('/target_assurance', 'invalid_enum', 'target_assurance must be one of dal_0, dal_1, dal_2 (dal_3 and dal_4 are not delivered).'));
    else target = req.target_assurance as AssuranceLevel;
  }
  const queries: Plan['queries'] = [];
  const checks = new Set<CheckKind>();
  if (c.government_identifier !== undefined) {
    const v = String(c.government_identifier).trim();
    if (NIN.test(v)) ask(sources, queries, checks, 'government_identifier', v, true);
    else if (VNIN.test(v)) ask(sources, queries, checks, 'government_identifier', v.toUpperCase(), false);
    else bad.push(errorEntry('/claims/government_identifier', 'invalid_format', 'government_identifier must be an 11-digit NIN or a 16-character vNIN (2 letters, 12 digits, 2 letters).'));
  }
  if (c.bank_identifier !== undefined) {
    const v = String(c.bank_identifier).trim();
    if (BVN.test(v)) ask(sources, queries, checks, 'bank_identifier', v, true);
    else bad.push(errorEntry('/claims/bank_identifier', 'invalid_format', 'bank_identifier must be an 11-digit BVN.'));
  }
  if (c.phone !== undefined) {
    const v = normalisePhone(String(c.phone));
    if (v) ask(sources, queries, checks, 'contactability', v, true);
    else bad.push(errorEntry('/claims/phone', 'invalid_format', 'phone must be a Nigerian number: +234 followed by 10 digits, or 0 followed by 10 digits.'));
  }
  if (c.business_registration_number !== undefined) {
    const v = registrationNumber(String(c.business_registration_number));
    if (v) ask(sources, queries, checks, 'corporate_registry', v, true);
    else bad.push(errorEntry('/claims/business_registration_number', 'invalid_format', 'business_registration_number must be a CAC number: RC, BN or IT followed by up to 8 digits, or the digits alone.'));
    if (c.business_name !== undefined) checks.add('name_match');
    if (c.directors?.length) checks.add('directors_identity');
  }
  bad.push(...organisationClaimsRefused(c, ACTIVE_POLICY.pack));
  if (c.date_of_birth !== undefined) {
    const d = String(c.date_of_birth);
    const t = Date.parse(`${d}T00:00:00Z`);
    if (!DATE.test(d) || Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== d) bad.push(errorEntry('/claims/date_of_birth', 'invalid_date', 'date_of_birth must be a date, YYYY-MM-DD.'));
    else if (t > now) bad.push(errorEntry('/claims/date_of_birth', 'in_the_future', 'date_of_birth cannot be in the future.'));
  }
  if (c.full_name !== undefined && nameTokens(String(c.full_name), ACTIVE_POLICY.pack).length === 0) bad.push(errorEntry('/claims/full_name', 'invalid_format', 'full_name must hold at least one name.'));
  const matchable = checks.has('government_identifier') || checks.has('bank_identifier');
  if (matchable && c.full_name !== undefined) checks.add('name_match');
  if (matchable && c.date_of_birth !== undefined) checks.add('date_of_birth_match');
  if (!bad.length && queries.length === 0) bad.push(errorEntry('/claims', 'nothing_to_check', 'claims must include at least one of government_identifier, bank_identifier or phone (a person), or business_registration_number (an organisation): there is nothing a source could check otherwise.'));
  if (bad.length) throw validationError(bad, 1);
  return { checks: [...checks], queries, target };
}

/**
 * Whether the token authorises these checks (rule 7). Undefined when it does; otherwise why not.
 * A token of another organisation, or none, is "missing" (422 consent_token_missing): its existence
 * is not ours to reveal.
 */
export async function consentBar(platform: Platform, caller: Caller, req: VerificationRequest, checks: readonly CheckKind[]): Promise<{ token: ConsentState; blocked: BlockedBecause | null; purpose: string }> {
  if (req.consent_token_id === undefined) throw new ApiError('consent_token_missing', 'No consent_token_id was given: no source can be queried without a consent token of the subject (spec rule 7).');
  const token = await readToken(platform, caller.org, req.consent_token_id);
  if (!token) throw new ApiError('consent_token_missing', `No consent token ${req.consent_token_id} for this organisation: no source can be queried without one (spec rule 7).`);
  const purpose = req.purpose ?? token.purpose;
  if (!consentActive(token, platform.clock.now())) return { token, blocked: 'no_consent', purpose };
  const pack = ACTIVE_POLICY.pack;
  const scoped =
    token.subject_ref === req.subject_ref &&
    token.purpose === purpose &&
    pack.verification.purposes.includes(token.purpose) &&
    checks.every((c) => token.checks.includes(c));
  return { token, blocked: scoped ? null : 'consent_scope_insufficient', purpose };
}

/** Builds the actor's create command: blocked without a query, or every source asked once. */
export async function runVerification(
  platform: Platform,
  caller: Caller,
  req: VerificationRequest,
  sources: readonly IdentitySource[],
  digests: Digester,
): Promise<{ cmd: CreateVerification; vault: VaultEntry | undefined }> {
  const now = platform.clock.now();
  const plan = planChecks(req, sources, now);
  const pack = ACTIVE_POLICY.pack;
  const { token, blocked, purpose } = await consentBar(platform, caller, req, plan.checks);
  const facts = {
    subject_ref: req.subject_ref,
    consent_token_id: token.id,
    purpose,
    origin: req.origin ?? 'partner_api',
    target_assurance: plan.target ?? defaultTarget(purpose, pack),
    livemode: caller.livemode,
    mocked: plan.queries.some((q) => q.source.mocked),
    policy_version: pack.version,
    checks: plan.checks,
  };
  const bar = blocked ?? ((await isBlocklisted(platform, caller.org, req.subject_ref)) ? 'subject_blocklisted' : null);
  if (bar) return { cmd: { ...facts, blocked_because: bar, results: [] }, vault: undefined };
  // an organisation's registered name is matched as a person's full name is
  const c = isOrganisationClaims(req.claims) ? { ...req.claims, full_name: req.claims.business_name } : req.claims;
  const vault: VaultEntry = { passport_id: passportIdOf(caller.org, req.subject_ref), masked: {}, digests: {}, claims: { name: null, date_of_birth: null } };
  const match = clearMatcher(c);
  const answers = await Promise.all(
    plan.queries.map(async (q) => {
      const answer = await q.source.query({ identifier: q.identifier, full_name: c.full_name, date_of_birth: c.date_of_birth }, now).catch(
        (e: unknown): SourceAnswer => ({ status: 'silent', detail: `${q.source.name} failed: ${e instanceof Error ? e.message : String(e)}` }),
      );
      const key = q.check;
      vault.masked[key] = q.kept ? mask(q.identifier) : 'vnin_not_kept';
      // Identifier digests find the same person under two subject_refs; a phone is not such a mark, and a vNIN is never kept (reference 1.1).
      if (q.kept && key !== 'contactability' && key !== 'corporate_registry') vault.digests[key] = digests.digest(key, q.identifier);
      return resultsOf(q.source, q.check, answer, plan.checks, match, now);
    }),
  );
  const results = [...answers.flat(), ...(c.directors ? await directorResults(platform, caller.org, c.directors, pack, now) : [])];
  // Claims kept (as digests) only when an answer will be compared later.
  if (results.some((r) => r.status === 'deferred')) {
    vault.claims = {
      name: c.full_name ? digests.tokens('name', nameTokens(c.full_name, pack)) : null,
      date_of_birth: c.date_of_birth ? digests.digest('date_of_birth', c.date_of_birth) : null,
    };
  }
  return { cmd: { ...facts, blocked_because: null, results }, vault };
}

/** POST /v1/identity/verifications: the record as it stands after the sources answered. */
export async function verify(platform: Platform, caller: Caller, id: string, req: VerificationRequest, dedupeId: string | undefined) {
  const svc = identityService(platform);
  const { cmd, vault } = await runVerification(platform, caller, req, svc.sources, svc.vault.digests);
  if (vault) await svc.vault.put(caller.org, id, req.subject_ref, vault, platform.clock.now());
  const view = await platform.system.ask(Verification, id, 'create', cmd, { ...caller, dedupeId });
  if (view.outcome === 'resolved') await issuePassport(platform, { ...view, org: caller.org }, caller);
  if (vault) await findCandidates(platform, caller, id, req.subject_ref, vault.digests, view.livemode);
  return view;
}

/** The same identifier digest presented for another subject makes a merge candidate (one per pair). */
async function findCandidates(platform: Platform, caller: Caller, id: string, subject: string, digests: Record<string, string | undefined>, livemode: boolean): Promise<void> {
  const { vault } = identityService(platform);
  const mine = passportIdOf(caller.org, subject);
  for (const [kind, digest] of Object.entries(digests)) {
    if (!digest || kind === 'contactability') continue;
    for (const passport of await vault.sameDigest(caller.org, digest)) {
      if (passport === mine) continue;
      const other = await vault.subjectOf(caller.org, passport);
      if (other === undefined) continue;
      await platform.system.ask(
        MergeCandidate,
        candidateIdOf(caller.org, subject, other),
        'find',
        { subject_refs: [subject, other], matched_on: kind, verification_ids: [id], livemode },
        { org: caller.org, requestId: caller.requestId, principal: 'system', dedupeId: `candidate:${id}:${kind}:${other}` },
      );
    }
  }
}

/** Late answers (spec 3: pending while a source answers later). Not ready yet: the reminder comes again. */
export async function collectAnswers(platform: Platform, org: string, id: string, references: string[]): Promise<void> {
  const { system } = platform;
  const svc = identityService(platform);
  const s = await system.state(Verification, id, org);
  const entry = await svc.vault.get(org, id);
  const now = platform.clock.now();
  for (const reference of references) {
    const waiting = s.results.find((r) => r.status === 'deferred' && r.reference === reference);
    const source = waiting && svc.source(waiting.source);
    if (!waiting || !source) continue;
    const answer = await source.collect(reference, now);
    if (answer.status === 'deferred') continue;
    const primary = s.results.find((r) => r.reference === reference && isSourceCheck(r.check))!;
    const results: SourceResult[] = resultsOf(source, primary.check, answer, s.checks as CheckKind[], digestMatcher(entry?.claims ?? { name: null, date_of_birth: null }, svc.vault.digests), now);
    await system.ask(Verification, id, 'record_answer', { reference, results }, { org, principal: 'system', lane: 'system', dedupeId: `answer:${reference}` });
  }
  const after = await system.state(Verification, id, org);
  if (after.outcome === 'resolved') await issuePassport(platform, after, { org, livemode: after.livemode, principal: 'system' });
}

/** resolve: a verification not yet resolved is refused while its subject is blocklisted; the passport follows at once (the reaction to verification.resolved is the safety net). */
export async function resolveVerification(platform: Platform, caller: Caller, id: string, body: { reason: string }, dedupeId: string | undefined): Promise<unknown> {
  const { system } = platform;
  const s = await system.state(Verification, id, caller.org);
  if (s.outcome !== 'resolved' && (await isBlocklisted(platform, caller.org, s.subject_ref))) {
    throw new ApiError('conflict', `Subject ${s.subject_ref} is blocklisted; reverse the blocklist entry before resolving.`);
  }
  const view = await system.ask(Verification, id, 'resolve', body, { ...caller, dedupeId });
  await issuePassport(platform, await system.state(Verification, id, caller.org), caller);
  return view;
}

export function markUnresolved(platform: Platform, caller: Caller, id: string, body: { source: string; reason: string }, dedupeId: string | undefined): Promise<unknown> {
  return platform.system.ask(Verification, id, 'mark_unresolved', body, { ...caller, dedupeId });
}

/**
 * block chooses a scope: `subject` blocklists the verification's subject; `identifier` also
 * blocklists every other subject of the organisation who presented the same identifier (matched by
 * keyed digest; docs/gaps.md#identity).
 */
export async function blockVerification(platform: Platform, caller: Caller, id: string, body: { scope: BlockScope; reason: string }, dedupeId: string | undefined): Promise<unknown> {
  const { system } = platform;
  const s = await system.state(Verification, id, caller.org);
  if (s.outcome === 'blocked') throw new ApiError('conflict', `Verification ${id} is already blocked.`);
  const subjects = new Set([s.subject_ref]);
  if (body.scope === 'identifier') for (const other of await sameIdentifier(platform, caller.org, id)) subjects.add(other);
  for (const subject of subjects) {
    const cmd: CreateEntry = { subject_ref: subject, reason: body.reason, scope: body.scope, origin: 'verification_block', verification_id: id, livemode: s.livemode };
    await system.ask(BlocklistEntry, derivedId(BLOCKLIST_PREFIX, [caller.org, id, subject]), 'create', cmd, { ...caller, dedupeId: dedupeId && `${dedupeId}:${subject}` });
  }
  return system.ask(Verification, id, 'block', body, { ...caller, dedupeId });
}

/** The subjects of the organisation who presented the NIN or BVN this verification presented. */
async function sameIdentifier(platform: Platform, org: string, id: string): Promise<string[]> {
  const { vault } = identityService(platform);
  const entry = await vault.get(org, id);
  const out: string[] = [];
  for (const digest of [entry?.digests.government_identifier, entry?.digests.bank_identifier]) {
    if (!digest) continue;
    for (const passport of await vault.sameDigest(org, digest, 100)) {
      const other = await vault.subjectOf(org, passport);
      if (other !== undefined) out.push(other);
    }
  }
  return out;
}
