/**
 * The ranking a work order opens with reads the gates by subject number (spec 4.7 ranking; DESIGN
 * "Gates between areas"): the identity gate's live column, engagement standing's count column,
 * credentials' prepared eligibility (the licence column first) and the supply replica's report and
 * reliability columns, all numbered by the platform's one SubjectNumbers. Over the real modules,
 * fed through the API, each column says what its module's keyed read says, and the work order's
 * ranking equals the explained ranking of GET .../ranking, before and after the gates change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rankForOpen, rankingSources, rankWith } from '../../actors/allocation/index.ts';
import { credentialEligibility } from '../../actors/credentials/index.ts';
import { engagementStanding } from '../../actors/engagements/index.ts';
import { identityGate } from '../../actors/identity/index.ts';
import { subjectNumbers } from '../../kernel/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { verify } from '../credentials/support.ts';
import { blocklist } from '../engagements/support.ts';
import { dispatchKit, type Point } from './dispatch-support.ts';

let h: Harness;
let kit: ReturnType<typeof dispatchKit>;
beforeAll(async () => {
  h = await startHarness();
  kit = dispatchKit(h);
});
afterAll(async () => {
  await h?.close();
});

const ASKS = [
  ['no credential requirement', { occupation_code: null, claim_codes: [] as string[] }],
  ['an occupation with a licence and claims (ng-7412)', { occupation_code: 'ng-7412', claim_codes: [] as string[] }],
  ['claim codes', { occupation_code: null, claim_codes: ['ng-7412.safe_isolation'] as string[] }],
] as const;

/** A consent token for a credential verification (keys of this file's own, apart from the other helpers' counters). */
async function consent(subject: string): Promise<string> {
  const r = await h.request('POST', '/v1/identity/consent_tokens', { body: { subject_ref: subject, purpose: 'credential_verification', checks: ['government_identifier', 'name_match', 'date_of_birth_match'], wording_version: 'cv-2026-11' }, idempotencyKey: `ranking-consent-${subject}` });
  expect(r.status, r.text).toBe(201);
  return r.body.id;
}

function agree(p: Point) {
  const src = rankingSources(h.platform);
  const now = h.clock.now();
  for (const [name, ask] of ASKS) {
    const f = { location: { ...p, radius_metres: 500 }, search_radius_metres: 5000, ...ask };
    const explained = rankWith(src, now, h.org, f);
    const lean = rankForOpen(src, now, h.org, f);
    expect(lean.candidate_ids, name).toEqual(explained.ranked.map((c) => c.worker_id));
    expect(lean.candidate_scores, name).toEqual(explained.ranked.map((c) => c.score));
    expect(lean.excluded, name).toBe(explained.excluded.length);
  }
  return rankWith(src, now, h.org, { location: { ...p, radius_metres: 500 }, search_radius_metres: 5000, ...ASKS[1][1] });
}

function columnsAgree(workers: string[]) {
  const numbers = subjectNumbers(h.platform);
  const identity = identityGate(h.platform);
  const standing = engagementStanding(h.platform);
  for (const w of workers) {
    const n = numbers.find(h.org, w);
    expect(identity.liveAt(n), w).toBe(identity.isLive(h.org, w));
    expect(standing.currentAt(n), w).toBe(standing.isCurrent(h.org, w));
  }
}

describe('ranking by subject number (spec 4.7; DESIGN "Gates between areas")', { timeout: 120_000 }, () => {
  it('each gate column says what its module says, and the work order ranks as GET .../ranking explains, as passports, engagements and licences change', async () => {
    const p = kit.centre();
    const made = [await kit.worker(p, 100), await kit.worker(p, 250), await kit.worker(p, 400)];
    const full = made.map((m) => m.worker);
    const noEngagement = (await kit.worker(p, 150, { engagement: false })).worker;
    const noPassport = (await kit.worker(p, 200, { passport: false })).worker;
    const licensed = (await kit.worker(p, 300)).worker;
    const everyone = [...full, noEngagement, noPassport, licensed];
    columnsAgree(everyone);
    let explained = agree(p);
    expect(explained.excluded.map((e) => e.excluded_because).sort()).toEqual(['engagement_not_current', 'licence_missing', 'licence_missing', 'licence_missing', 'licence_missing', 'passport_not_live']);

    // a NEMSA licence for one worker (the portal answers after 72 hours); readings again after
    const token = await consent(licensed);
    const v = await verify(h, { subject_ref: licensed, issuer_id: 'proof_issuer_nemsa', credential_kind: 'nemsa_competency_certificate', consent_token_id: token, credential_reference: 'NEMSA-55120' }, `ranking-cv-${licensed}`);
    expect(v.status, v.text).toBe(201);
    await h.clock.advance(72 * 3_600_000);
    await h.platform.system.settle();
    for (const [w, m] of everyone.map((w, i) => [w, [100, 250, 400, 150, 200, 300][i]] as const)) await kit.at(w, kit.north(p, m));
    await h.platform.system.settle();
    const n = subjectNumbers(h.platform).find(h.org, licensed);
    const licenceOnly = credentialEligibility(h.platform).prepare({ occupation_code: 'ng-7412', claim_codes: [] });
    expect(licenceOnly.claimsAt(n)).toEqual([]);
    expect(licenceOnly.claimsAt(subjectNumbers(h.platform).find(h.org, full[0]))).toBeNull();
    explained = agree(p);
    // the licence alone is not the occupation: its framework's claims are still missing
    expect(explained.excluded.find((e) => e.worker_id === licensed)?.excluded_because).toBe('claim_missing');

    // a blocklisted passport: the live column follows (and the worker leaves the map)
    await blocklist(h, full[1]);
    await h.platform.system.settle();
    columnsAgree(everyone);
    expect(identityGate(h.platform).liveAt(subjectNumbers(h.platform).find(h.org, full[1]))).toBe(false);
    explained = agree(p);
    expect(explained.ranked.map((c) => c.worker_id)).not.toContain(full[1]);

    // a terminated engagement: the count column follows
    const t = await h.request('POST', `/v1/rail/engagements/${made[2].engagementId}/terminate`, { body: { reason: 'Role closed.' }, idempotencyKey: `ranking-terminate-${full[2]}` });
    expect(t.status, t.text).toBe(200);
    await h.platform.system.settle();
    columnsAgree(everyone);
    expect(engagementStanding(h.platform).currentAt(subjectNumbers(h.platform).find(h.org, full[2]))).toBe(false);
    agree(p);
  });

  it('prepared eligibility answers as check() does, by subject number, as the clock reaches a licence\u2019s expiry and licence.expired commits', async () => {
    const numbers = subjectNumbers(h.platform);
    const creds = credentialEligibility(h.platform);
    const holder = `holder-${process.pid}`;
    const token = await consent(holder);
    const v = await verify(h, { subject_ref: holder, issuer_id: 'proof_issuer_nemsa', credential_kind: 'nemsa_competency_certificate', consent_token_id: token, credential_reference: 'NEMSA-55121' }, `ranking-cv-${holder}`);
    expect(v.status, v.text).toBe(201);
    await h.clock.advance(72 * 3_600_000);
    await h.platform.system.settle();
    const lic = (await h.request('GET', `/v1/credentials/licences?subject_ref=${holder}&occupation_code=ng-7412`)).body.data[0];
    const queries = [{ occupation_code: 'ng-7412', claim_codes: [] }, { occupation_code: 'ng-7412' }, { occupation_code: 'ng-7411', claim_codes: [] }, { claim_codes: ['ng-7412.safe_isolation'] }, { occupation_code: 'ng-8322', claim_codes: [] }];
    const same = (subject: string) => {
      for (const q of queries) {
        const e = creds.check(h.org, subject, q);
        expect(creds.prepare(q).claimsAt(numbers.find(h.org, subject)), `${subject} ${JSON.stringify(q)}`).toEqual(e.eligible ? e.claims : null);
      }
    };
    same(holder);
    same('nobody-at-all');
    expect(creds.prepare(queries[0]).claimsAt(numbers.find(h.org, holder))).toEqual([]);
    // at expires_at (time applies at read, whether or not licence.expired has committed yet) and after
    await h.clock.advanceTo(Date.parse(`${lic.expires_at}T00:00:00Z`));
    same(holder);
    expect(creds.prepare(queries[0]).claimsAt(numbers.find(h.org, holder))).toBeNull();
    await h.platform.system.settle();
    same(holder);
  });
});
