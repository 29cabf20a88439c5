/**
 * Eligibility for other modules (spec 2.5: "a statutory licence required by law is a gate, its
 * absence blocks and no other evidence substitutes"; DESIGN "Gates between areas"). For a subject
 * and an occupation (every claim of its framework at the framework's NVQF level, and a current
 * licence where the policy pack says the law requires one) or a list of claim codes, it answers
 * eligible or not, with every reason (licence_missing, licence_expired, claim_missing,
 * claim_lapsed, level_too_low) and a freshness score per claim, from memory, with no I/O.
 *
 * The model holds, per organisation and subject, the claims by code and the licences by occupation,
 * as compact facts; time is applied at read, so a claim past its expires_at or a licence past its
 * expiry counts as lapsed or expired even in the instant before its reminder commits the event.
 * Claims rank by evidence class, then freshness (the share of its lifetime still ahead).
 * prepare() resolves one query once for a reader asking it of many subjects in a row (a work
 * order's ranking), by subject number (kernel SubjectNumbers): a licensed occupation's licence is
 * kept per subject number as the latest expiry among its current licences of a kind the law
 * accepts (a column), so a query that needs only the licence reads one number per subject.
 * - Embedded: it follows the actor system's commits as they happen (onCommit).
 * - Cluster: each node also reads the whole journal feed for itself (a per-node FeedReader), so
 *   claims and licences committed on any node reach every node's model; every claim and licence
 *   event carries the facts the model needs, so the feed alone rebuilds it after a start. A version
 *   per record keeps the older of two routes from overwriting the newer.
 */
import type { Committed } from '../../runtime/index.ts';
import { fieldError, NodeReadModel, NumberColumn, subjectNumbers, type Platform, type SubjectNumbers } from '../../kernel/index.ts';
import type { FeedEntry, StoredEvent } from '../../stores/index.ts';
import { Claim, type ClaimEvent, freshness } from './claim.ts';
import { dateMs } from './dates.ts';
import { Licence, type LicenceEvent } from './licence.ts';
import { type ActivePolicy, type EvidenceClass, EVIDENCE_CLASSES, evidenceRank } from './policy.ts';

export type ReasonCode = 'licence_missing' | 'licence_expired' | 'claim_missing' | 'claim_lapsed' | 'level_too_low' | 'unknown_occupation' | 'unknown_claim_code';

export interface Reason {
  code: ReasonCode;
  detail: string;
  claim_code?: string;
  occupation_code?: string;
  required_level?: number;
  held_level?: number;
  licence_id?: string;
}

export interface ClaimScore {
  code: string;
  /** The claim counted (or the best one that fell short), null when the subject holds none. */
  claim_id: string | null;
  /** 0..1, the share of the claim's lifetime still ahead; 0 for none or a lapsed one. */
  freshness: number;
  evidence_class: EvidenceClass | null;
  level: number | null;
}

export interface Eligibility {
  eligible: boolean;
  reasons: Reason[];
  claims: ClaimScore[];
}

/** One query prepared for many subjects (EligibilityModel.prepare). */
export interface PreparedEligibility {
  /** null when the numbered subject is not eligible; else the required claims' scores (none for a licence alone). */
  claimsAt(subject: number): readonly ClaimScore[] | null;
}

export interface EligibilityQuery {
  occupation_code?: string;
  claim_codes?: readonly string[];
}

interface ClaimFact {
  id: string;
  code: string;
  level: number;
  rank: number;
  evidenceMs: number;
  lapsesAt: number;
  lapsed: boolean;
  superseded: boolean;
  version: number;
}

interface LicenceFact {
  id: string;
  kind: string;
  occupation: string;
  expiresMs: number;
  current: boolean;
  version: number;
}

class SubjectFacts {
  readonly claims = new Map<string, ClaimFact[]>();
  readonly claimById = new Map<string, ClaimFact>();
  /** occupation -> licences for it (one per issuing body). */
  readonly licences = new Map<string, LicenceFact[]>();
  readonly licenceById = new Map<string, LicenceFact>();
}

interface Requirement {
  codes: string[];
  levels: number[];
  /** Licence kinds, any one current of which satisfies the law; null when none is required. */
  licenceKinds: string[] | null;
  occupation: string | null;
  unknown: Reason[];
}

const NO_CLAIMS: readonly ClaimScore[] = Object.freeze([]);

/** A subject's facts as a checkpoint keeps them (kernel read-model-checkpoints): in the order they were first read. */
type SavedSubject = [org: string, subjectRef: string, claims: ClaimFact[], licences: LicenceFact[]];

function appendTo<V>(m: Map<string, V[]>, key: string, v: V): void {
  const list = m.get(key);
  if (list) list.push(v);
  else m.set(key, [v]);
}

const CLAIM_STREAM = `${Claim.kind}.`;
const LICENCE_STREAM = `${Licence.kind}.`;

export class EligibilityModel {
  private readonly orgs = new Map<string, Map<string, SubjectFacts>>();
  private readonly occupations = new Map<string, Requirement>();
  private readonly follower: NodeReadModel;
  private readonly numbers: SubjectNumbers;
  /** Every subject's facts by subject number (dense; undefined where none). */
  private readonly byNumber: (SubjectFacts | undefined)[] = [];
  /** Per licensed occupation, by subject number: the latest expiry of a current licence of an accepted kind (0: none). */
  private readonly licensedUntil = new Map<string, NumberColumn>();
  private claimCount = 0;
  private licenceCount = 0;

  constructor(
    private readonly platform: Platform,
    private readonly policy: ActivePolicy,
  ) {
    this.numbers = subjectNumbers(platform);
    for (const occupation of Object.keys(policy.pack.licensed_occupations)) this.licensedUntil.set(occupation, new NumberColumn());
    this.follower = new NodeReadModel(platform, 'credentials-eligibility', {
      onCommit: (c) => this.onCommit(c),
      onFeed: (e) => this.onFeed(e),
      kept: { save: () => this.save(), load: (d) => this.load(d as SavedSubject[]) },
      wants: (stream) => stream.startsWith(CLAIM_STREAM) || stream.startsWith(LICENCE_STREAM),
    });
    for (const [occupation, f] of policy.frameworksByOccupation) {
      const codes = f.claims.map((c) => c.code);
      this.occupations.set(occupation, {
        codes,
        levels: codes.map((c) => policy.requiredLevel(c)),
        licenceKinds: policy.pack.licensed_occupations[occupation] ?? null,
        occupation,
        unknown: [],
      });
    }
  }

  get size(): { subjects: number; claims: number; licences: number } {
    let subjects = 0;
    for (const m of this.orgs.values()) subjects += m.size;
    return { subjects, claims: this.claimCount, licences: this.licenceCount };
  }

  /** Eligible or not, with the reasons and a freshness score per required claim. */
  check(org: string, subjectRef: string, q: EligibilityQuery): Eligibility {
    return this.evaluate(this.requirement(q), this.orgs.get(org)?.get(subjectRef), this.platform.clock.now());
  }

  /**
   * The query resolved once, asked by subject number (numbers of this platform's SubjectNumbers, in
   * the organisation asked about): the same answer as check(), at the clock's time of preparing.
   */
  prepare(q: EligibilityQuery): PreparedEligibility {
    const req = this.requirement(q);
    const now = this.platform.clock.now();
    if (req.unknown.length) return { claimsAt: () => null };
    if (!req.codes.length && !req.licenceKinds) return { claimsAt: () => NO_CLAIMS };
    const until = req.licenceKinds ? this.licensedUntil.get(req.occupation!) : undefined;
    if (!req.codes.length && until) return { claimsAt: (n) => (now < until.get(n) ? NO_CLAIMS : null) };
    return {
      claimsAt: (n) => {
        // without the licence nothing else can make the subject eligible: the column answers first
        if (until && !(now < until.get(n))) return null;
        const e = this.evaluate(req, n >= 0 ? this.byNumber[n] : undefined, now);
        return e.eligible ? e.claims : null;
      },
    };
  }

  private evaluate(req: Requirement, facts: SubjectFacts | undefined, now: number): Eligibility {
    const reasons: Reason[] = req.unknown.length ? [...req.unknown] : [];
    const claims: ClaimScore[] = new Array(req.codes.length);
    for (let i = 0; i < req.codes.length; i++) {
      const code = req.codes[i];
      const need = req.levels[i];
      const list = facts?.claims.get(code);
      let best: ClaimFact | undefined;
      let bestFresh = 0;
      let low: ClaimFact | undefined;
      let lapsed: ClaimFact | undefined;
      if (list) {
        for (let j = 0; j < list.length; j++) {
          const c = list[j];
          if (c.superseded) continue;
          if (c.lapsed || now >= c.lapsesAt) {
            lapsed ??= c;
            continue;
          }
          if (c.level < need) {
            if (!low || c.level > low.level) low = c;
            continue;
          }
          const f = freshness(c.evidenceMs, c.lapsesAt, now);
          if (!best || c.rank > best.rank || (c.rank === best.rank && f > bestFresh)) {
            best = c;
            bestFresh = f;
          }
        }
      }
      if (best) {
        claims[i] = { code, claim_id: best.id, freshness: bestFresh, evidence_class: EVIDENCE_CLASSES[best.rank], level: best.level };
        continue;
      }
      const shown = low ?? lapsed;
      if (low) reasons.push({ code: 'level_too_low', claim_code: code, required_level: need, held_level: low.level, detail: `${code} is held at level ${low.level}; level ${need} is required.` });
      else if (lapsed) reasons.push({ code: 'claim_lapsed', claim_code: code, detail: `The claim ${code} has lapsed; a lapsed claim does not count.` });
      else reasons.push({ code: 'claim_missing', claim_code: code, required_level: need, detail: `No claim ${code} is held.` });
      claims[i] = { code, claim_id: shown?.id ?? null, freshness: low ? freshness(low.evidenceMs, low.lapsesAt, now) : 0, evidence_class: shown ? (low ? EVIDENCE_CLASSES[low.rank] : 'e1_claimed') : null, level: shown?.level ?? null };
    }
    if (req.licenceKinds) {
      const held = facts?.licences.get(req.occupation!);
      let current = false;
      let expired: LicenceFact | undefined;
      if (held)
        for (const l of held) {
          if (!req.licenceKinds.includes(l.kind)) continue;
          if (l.current && now < l.expiresMs) current = true;
          else expired ??= l;
        }
      if (!current) {
        if (expired) reasons.push({ code: 'licence_expired', occupation_code: req.occupation!, licence_id: expired.id, detail: `The licence for ${req.occupation} has expired; the law requires a current one and no other evidence substitutes.` });
        else reasons.push({ code: 'licence_missing', occupation_code: req.occupation!, detail: `${req.occupation} requires a statutory licence (${req.licenceKinds.join(' or ')}); none is held, and no other evidence substitutes.` });
      }
    }
    return { eligible: reasons.length === 0, reasons, claims };
  }

  private requirement(q: EligibilityQuery): Requirement {
    if (q.occupation_code !== undefined && q.claim_codes === undefined) {
      const r = this.occupations.get(q.occupation_code);
      if (r) return r;
      return { codes: [], levels: [], licenceKinds: null, occupation: q.occupation_code, unknown: [{ code: 'unknown_occupation', occupation_code: q.occupation_code, detail: `No competency framework for occupation ${q.occupation_code}.` }] };
    }
    if (q.claim_codes === undefined) throw fieldError('/occupation_code', 'required', 'Give occupation_code or claim_codes.');
    const base = q.occupation_code !== undefined ? this.occupations.get(q.occupation_code) : undefined;
    const unknown: Reason[] = [];
    if (q.occupation_code !== undefined && !base) unknown.push({ code: 'unknown_occupation', occupation_code: q.occupation_code, detail: `No competency framework for occupation ${q.occupation_code}.` });
    const codes: string[] = [];
    for (const c of q.claim_codes) {
      if (this.policy.claimCodes.has(c)) codes.push(c);
      else unknown.push({ code: 'unknown_claim_code', claim_code: c, detail: `${c} is not a claim code of any framework.` });
    }
    return { codes, levels: codes.map((c) => this.policy.requiredLevel(c)), licenceKinds: base?.licenceKinds ?? null, occupation: q.occupation_code ?? null, unknown };
  }

  start(): void {
    this.follower.start();
  }

  stop(): Promise<void> {
    return this.follower.stop();
  }

  /** Resolves once the feed read so far is applied (cluster); at once embedded. */
  caughtUp(): Promise<void> {
    return this.follower.caughtUp();
  }

  private onCommit(c: Committed): void {
    if (c.kind === Claim.kind) for (const e of c.events) this.applyClaim(e.org, c.id, e);
    else if (c.kind === Licence.kind) for (const e of c.events) this.applyLicence(e.org, c.id, e);
  }

  private onFeed(entries: FeedEntry[]): void {
    for (const { stream, event } of entries) {
      if (stream.startsWith(CLAIM_STREAM)) this.applyClaim(event.org, stream.slice(CLAIM_STREAM.length), event);
      else if (stream.startsWith(LICENCE_STREAM)) this.applyLicence(event.org, stream.slice(LICENCE_STREAM.length), event);
    }
  }

  private save(): SavedSubject[] {
    const out: SavedSubject[] = [];
    for (const [org, subjects] of this.orgs) for (const [ref, s] of subjects) out.push([org, ref, [...s.claimById.values()], [...s.licenceById.values()]]);
    return out;
  }

  /**
   * Each subject's facts back in the order they were first read (a claim's list by code keeps that
   * order, and the first lapsed one is the one a refusal names); each licensed occupation's column
   * is worked out again under this process's policy.
   */
  private load(saved: SavedSubject[]): void {
    for (const [org, ref, claims, licences] of saved) {
      const s = this.subject(org, ref);
      for (const f of claims) this.addClaim(s, f);
      for (const f of licences) this.addLicence(s, f);
      for (const occupation of s.licences.keys()) this.licenceChanged(org, ref, s, occupation);
    }
  }

  /** A claim first read: by id, and last in its code's list. */
  private addClaim(s: SubjectFacts, f: ClaimFact): void {
    s.claimById.set(f.id, f);
    appendTo(s.claims, f.code, f);
    this.claimCount++;
  }

  /** A licence first read: by id, and last in its occupation's list. */
  private addLicence(s: SubjectFacts, f: LicenceFact): void {
    s.licenceById.set(f.id, f);
    appendTo(s.licences, f.occupation, f);
    this.licenceCount++;
  }

  private subject(org: string, subjectRef: string): SubjectFacts {
    let m = this.orgs.get(org);
    if (!m) this.orgs.set(org, (m = new Map()));
    let s = m.get(subjectRef);
    if (!s) {
      m.set(subjectRef, (s = new SubjectFacts()));
      const n = this.numbers.of(org, subjectRef);
      while (this.byNumber.length <= n) this.byNumber.push(undefined);
      this.byNumber[n] = s;
    }
    return s;
  }

  /** Keeps an occupation's licence column in step with the subject's licences for it. */
  private licenceChanged(org: string, subjectRef: string, s: SubjectFacts, occupation: string): void {
    const column = this.licensedUntil.get(occupation);
    if (!column) return;
    const kinds = this.policy.pack.licensed_occupations[occupation]!;
    let until = 0;
    for (const l of s.licences.get(occupation) ?? []) if (l.current && kinds.includes(l.kind) && l.expiresMs > until) until = l.expiresMs;
    column.set(this.numbers.of(org, subjectRef), until);
  }

  private applyClaim(org: string, id: string, ev: StoredEvent): void {
    const e = ev.data as ClaimEvent;
    const s = this.subject(org, e.subject_ref);
    if (e.type === 'claim.issued') {
      if (s.claimById.has(id)) return;
      const f: ClaimFact = {
        id, code: e.claim_code, level: e.level, rank: evidenceRank(e.evidence_class), evidenceMs: dateMs(e.evidence_date), lapsesAt: e.lapses_at,
        lapsed: e.decay_state === 'lapsed', superseded: false, version: ev.version,
      };
      this.addClaim(s, f);
      return;
    }
    const f = s.claimById.get(id);
    if (!f || ev.version <= f.version) return;
    f.version = ev.version;
    if (e.type === 'claim.lapsed') f.lapsed = true;
    else if (e.type === 'claim.superseded') f.superseded = true;
  }

  private applyLicence(org: string, id: string, ev: StoredEvent): void {
    const e = ev.data as LicenceEvent;
    const s = this.subject(org, e.subject_ref);
    let f = s.licenceById.get(id);
    if (f && ev.version <= f.version) return;
    switch (e.type) {
      case 'licence.recorded': {
        if (f) return;
        f = { id, kind: e.licence_kind, occupation: e.occupation_code, expiresMs: dateMs(e.expires_at), current: e.status === 'current', version: ev.version };
        this.addLicence(s, f);
        break;
      }
      case 'licence.renewed':
        if (!f) return;
        f.expiresMs = dateMs(e.expires_at);
        f.current = true;
        f.version = ev.version;
        break;
      case 'licence.expired':
        if (!f) return;
        f.current = false;
        f.version = ev.version;
        break;
      default:
        return;
    }
    this.licenceChanged(org, e.subject_ref, s, f.occupation);
  }
}
