/**
 * The identity module's long-lived parts on one node: its sources (providers/), the personal-data
 * vault, the live-passport gate, and the work that needs I/O around the actors: running a
 * verification, collecting late answers (verification.collection_due), finding merge candidates
 * from identifier digests, and carrying out subject requests. Registered under IDENTITY.
 */
import { ApiError, type Caller, type Platform, serviceKey } from '../../kernel/index.ts';
import type { Committed } from '../../runtime/index.ts';
import { BlocklistEntry } from './blocklist-entry.ts';
import type { SourceResult } from './evidence.ts';
import { PassportGate } from './gate.ts';
import { passportIdOf } from './ids.ts';
import { candidateIdOf, MergeCandidate } from './merge-candidate.ts';
import { markIssuedHere, Passport } from './passport.ts';
import type { CheckKind } from './policy.ts';
import { type IdentitySource, sandboxSources } from './providers/index.ts';
import { Vault } from './vault.ts';
import { Verification, type VerificationState } from './verification.ts';
import { digestMatcher, resultsOf, runVerification, type VerificationRequest } from './verify.ts';

export const IDENTITY = serviceKey<IdentityService>('identity');

/** The fields of a verification's view the service reads. */
type VerificationView = Pick<VerificationState, 'id' | 'outcome' | 'subject_ref' | 'assurance_reached' | 'consent_token_id' | 'livemode' | 'mocked'>;

export class IdentityService {
  readonly gate: PassportGate;
  readonly vault: Vault;
  readonly sources: IdentitySource[];
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly platform: Platform, sources?: IdentitySource[]) {
    this.gate = new PassportGate(platform);
    this.vault = new Vault(platform);
    const slow = Number(platform.config.IDENTITY_SANDBOX_SLOW_ANSWER_MS ?? 120_000);
    this.sources = sources ?? sandboxSources(Number.isFinite(slow) && slow >= 0 ? slow : 120_000);
  }

  async start(): Promise<void> {
    await this.vault.start();
    this.gate.start();
    this.unsubscribe = this.platform.system.onCommit((c) => this.onCommit(c));
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    await this.gate.stop();
  }

  source(id: string): IdentitySource | undefined {
    return this.sources.find((s) => s.id === id);
  }

  /** POST /v1/identity/verifications: the record as it stands after the sources answered. */
  async verify(req: VerificationRequest, caller: Caller, id: string, dedupeId: string | undefined): Promise<unknown> {
    const { system } = this.platform;
    const { cmd, vault } = await runVerification(this.platform, caller, req, this.sources, this.vault.digests);
    if (vault) await this.vault.put(caller.org, id, req.subject_ref, vault, this.platform.clock.now());
    const view = (await system.ask(Verification, id, 'create', cmd, { ...caller, dedupeId })) as VerificationView;
    if (view.outcome === 'resolved') await this.issuePassport({ ...view, org: caller.org }, caller);
    if (vault) await this.findCandidates(caller, id, req.subject_ref, vault.digests, view.livemode);
    return view;
  }

  /** The passport of a resolved verification, at once (the reaction to verification.resolved is the safety net). */
  async issuePassport(s: Pick<VerificationState, 'id' | 'org' | 'outcome' | 'subject_ref' | 'assurance_reached' | 'consent_token_id' | 'livemode' | 'mocked'>, caller: Caller): Promise<void> {
    if (s.outcome !== 'resolved' || s.assurance_reached === null) return;
    await this.platform.system.ask(
      Passport,
      passportIdOf(s.org, s.subject_ref),
      'issue',
      { subject_ref: s.subject_ref, verification_id: s.id, assurance: s.assurance_reached, consent_token_id: s.consent_token_id, livemode: s.livemode, mocked: s.mocked },
      { ...caller, dedupeId: `issue:${s.id}` },
    );
    markIssuedHere(s.org, s.id);
    // A blocklisting that landed while the sources were being asked still holds the new passport.
    const pid = passportIdOf(s.org, s.subject_ref);
    const active = await this.platform.system.listIds(BlocklistEntry, s.org, `active_subject:${pid}`, { limit: 100, order: 'asc' });
    for (const entry of active.ids) {
      await this.platform.system.ask(Passport, pid, 'hold', { kind: 'blocklisted', ref: entry }, { org: s.org, principal: 'system', dedupeId: `hold:${entry}:${s.id}` });
    }
  }

  /** The same identifier digest presented for another subject makes a merge candidate (one per pair). */
  private async findCandidates(caller: Caller, id: string, subject: string, digests: Record<string, string | undefined>, livemode: boolean): Promise<void> {
    const mine = passportIdOf(caller.org, subject);
    for (const [kind, digest] of Object.entries(digests)) {
      if (!digest || kind === 'contactability') continue;
      for (const passport of await this.vault.sameDigest(caller.org, digest)) {
        if (passport === mine) continue;
        const other = await this.vault.subjectOf(caller.org, passport);
        if (other === undefined) continue;
        await this.platform.system.ask(
          MergeCandidate,
          candidateIdOf(caller.org, subject, other),
          'find',
          { subject_refs: [subject, other], matched_on: kind, verification_ids: [id], livemode },
          { org: caller.org, requestId: caller.requestId, principal: 'system', dedupeId: `candidate:${id}:${kind}:${other}` },
        );
      }
    }
  }

  private onCommit(c: Committed): void {
    if (c.kind !== Verification.kind) return;
    for (const e of c.events) {
      if (e.type !== 'verification.collection_due') continue;
      const refs = (e.data as { references: string[] }).references;
      void this.platform.system.track(this.collect(c.org, c.id, refs)).catch((err) => {
        if (!(err instanceof ApiError)) console.error(`[identity] collecting answers for ${c.id} failed; the next reminder tries again`, err);
      });
    }
  }

  /** Late answers (spec 3: pending while a source answers later). Not ready yet: the reminder comes again. */
  private async collect(org: string, id: string, references: string[]): Promise<void> {
    const s = await this.platform.system.state<VerificationState>(Verification, id, org);
    const entry = await this.vault.get(org, id);
    const now = this.platform.clock.now();
    for (const reference of references) {
      const waiting = s.results.find((r) => r.status === 'deferred' && r.reference === reference);
      const source = waiting && this.source(waiting.source);
      if (!waiting || !source) continue;
      const answer = await source.collect(reference, now);
      if (answer.status === 'deferred') continue;
      const primary = s.results.find((r) => r.reference === reference && (r.check === 'government_identifier' || r.check === 'bank_identifier' || r.check === 'contactability'))!;
      const results: SourceResult[] = resultsOf(source, primary.check, answer, s.checks as CheckKind[], digestMatcher(entry?.claims ?? { name: null, date_of_birth: null }, this.vault.digests), now);
      await this.platform.system.ask(Verification, id, 'record_answer', { reference, results }, { org, principal: 'system', lane: 'system', dedupeId: `answer:${reference}` });
    }
    const after = await this.platform.system.state<VerificationState>(Verification, id, org);
    if (after.outcome === 'resolved') await this.issuePassport(after, { org, livemode: after.livemode, principal: 'system' });
  }
}

export const identityService = (platform: Platform): IdentityService => platform.services.require(IDENTITY);
