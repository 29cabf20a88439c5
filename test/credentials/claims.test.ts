/**
 * Competence claims (spec 2.5 CompetenceClaim, 3 Competence claim decay, 6 claim.lapsed) and
 * eligibility (spec 2.5: a required licence is a gate; claims rank by evidence class and freshness),
 * through the platform with the manual clock, over the test store family.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { actorEvents, createPlatform, type Platform, stopPlatform } from '../../kernel/index.ts';
import { ManualClock, roundTrip } from '../../runtime/index.ts';
import { area as identity } from '../../actors/identity/index.ts';
import { area as credentialsArea, Claim, createClaim, credentialEligibility, Licence } from '../../actors/credentials/index.ts';
import type { ClaimState } from '../../actors/credentials/claim.ts';
import { licenceIdOf } from '../../actors/credentials/ids.ts';
import { testStores } from '../../support/stores.ts';

const ORG = 'org_claims_test';
const caller = { org: ORG, livemode: false, principal: 'api_key_tester' };
let clock: ManualClock;
let platform: Platform;
let n = 0;

beforeEach(async () => {
  clock = new ManualClock('2026-03-02T09:00:00Z');
  platform = await createPlatform({ areas: [identity, credentialsArea], stores: await testStores(clock), clock, config: {} });
});
afterEach(async () => {
  if (platform) await stopPlatform(platform);
});

const subject = () => `subj-${process.pid}-${++n}`;

async function claim(subjectRef: string, code: string, o: { level?: number; evidence_class?: string; evidence_date?: string; supersedes?: string } = {}) {
  return (await createClaim(
    platform,
    { ...caller, idempotencyKey: `claim-${++n}` },
    { subject_ref: subjectRef, claim_code: code, level: o.level ?? 3, evidence_class: (o.evidence_class ?? 'e3_documented') as never, evidence_date: o.evidence_date ?? '2026-03-02', supersedes: o.supersedes },
  )) as { id: string; decay_state: string; expires_at: string; evidence_class: string };
}

/** A licence as a verified licence credential makes it (the licence actor's record command). */
async function licence(subjectRef: string, occupation: string, validFrom: string, expiresAt: string) {
  const id = licenceIdOf(ORG, subjectRef, occupation, 'proof_issuer_nemsa');
  await platform.system.ask(Licence, id, 'record', {
    verification_id: `proof_academic_verification_test${++n}`, subject_ref: subjectRef, occupation_code: occupation, issuer_id: 'proof_issuer_nemsa', issuer_name: 'NEMSA',
    licence_kind: 'nemsa_competency_certificate', valid_from: validFrom, expires_at: expiresAt, livemode: false, mocked: true,
  }, { org: ORG });
  return id;
}

const ELECTRICIAN = ['ng-7412.machine_wiring', 'ng-7412.safe_isolation', 'ng-7412.fault_finding', 'ng-7412.inspection_testing', 'ng-7412.generator_maintenance'];

const journalTypes = async (id: string) => (await actorEvents(platform, Claim, id)).map((e) => e.type);

describe('competence claim decay (spec 3)', () => {
  it('decay moves current -> ageing -> stale -> lapsed with the manual clock, and each step emits its event', async () => {
    const s = subject();
    // e3_documented: 36 months; ageing from 50%, stale from 80% of the lifetime (policy pack 2026.11.1).
    const c = await claim(s, 'ng-7412.fault_finding');
    expect(c).toMatchObject({ decay_state: 'current', expires_at: '2029-03-02', evidence_class: 'e3_documented' });
    const state = async () => (await platform.system.get(Claim, c.id, ORG)) as { decay_state: string; ageing_at: string; stale_at: string };
    const { ageing_at, stale_at } = await state();
    await clock.advanceTo(Date.parse(ageing_at) - 1);
    expect((await state()).decay_state).toBe('current');
    await clock.advanceTo(Date.parse(ageing_at));
    expect((await state()).decay_state).toBe('ageing');
    expect(await journalTypes(c.id)).toEqual(['claim.issued', 'claim.aged']);
    await clock.advanceTo(Date.parse(stale_at));
    expect((await state()).decay_state).toBe('stale');
    await clock.advanceTo(Date.parse('2029-03-02T00:00:00Z') - 1);
    expect((await state()).decay_state).toBe('stale');
    await clock.advanceTo(Date.parse('2029-03-02T00:00:00Z'));
    expect((await state()).decay_state).toBe('lapsed');
    expect(await journalTypes(c.id)).toEqual(['claim.issued', 'claim.aged', 'claim.went_stale', 'claim.lapsed']);
  });

  it('a clock jump over several boundaries emits every step, in order, at the boundary reached first', async () => {
    const c = await claim(subject(), 'ng-7412.fault_finding', { evidence_class: 'e1_claimed' }); // 12 months
    await clock.advance(400 * 86_400_000);
    expect(await journalTypes(c.id)).toEqual(['claim.issued', 'claim.aged', 'claim.went_stale', 'claim.lapsed']);
  });

  it('decay moves by reminders, not on read: the state is stored, and a snapshot restores it', async () => {
    const c = await claim(subject(), 'ng-7412.fault_finding', { evidence_class: 'e1_claimed' });
    await clock.advance(200 * 86_400_000);
    const s = await platform.system.state<ClaimState>(Claim, c.id, ORG);
    expect(s.decay_state).toBe('ageing');
    expect(roundTrip(s)).toEqual(s);
  });

  it('a claim and a licence rebuild from snapshot and journal to the live state (passivated mid-life, then advanced)', async () => {
    const s = subject();
    const c = await claim(s, 'ng-7412.fault_finding', { evidence_class: 'e1_claimed' });
    const l = await licence(s, 'ng-7412', '2026-03-02', '2026-09-01');
    await clock.advance(200 * 86_400_000);
    const live = { c: await platform.system.state(Claim, c.id, ORG), l: await platform.system.state(Licence, l, ORG) };
    await platform.system.passivateIdle(0);
    expect({ c: await platform.system.state(Claim, c.id, ORG), l: await platform.system.state(Licence, l, ORG) }).toEqual(live);
    await clock.advance(200 * 86_400_000);
    expect(await platform.system.state(Claim, c.id, ORG)).toMatchObject({ decay_state: 'lapsed' });
    expect(await platform.system.state(Licence, l, ORG)).toMatchObject({ status: 'expired' });
  });

  it('a lapsed claim stays listed and downgraded (evidence_class e1_claimed; the class at issue kept)', async () => {
    const s = subject();
    const c = await claim(s, 'ng-7412.fault_finding', { evidence_class: 'e5_demonstrated' }); // 24 months
    await clock.advance(731 * 86_400_000);
    const got = (await platform.system.get(Claim, c.id, ORG)) as Record<string, unknown>;
    expect(got).toMatchObject({ decay_state: 'lapsed', evidence_class: 'e1_claimed', evidence_class_at_issue: 'e5_demonstrated', downgraded: true, lapse_reason: 'expired' });
    const listed = await platform.system.list(Claim, ORG, `subject:${s}`, { limit: 10, order: 'desc' });
    expect(listed.data.map((x) => (x as { id: string }).id)).toEqual([c.id]);
  });

  it('lapse lapses a claim before expiry (claim.lapsed, downgraded); a second lapse is refused with 409', async () => {
    const c = await claim(subject(), 'ng-7412.fault_finding');
    const v = (await platform.system.ask(Claim, c.id, 'lapse', { reason: 'Employer withdrew the reference.' }, caller)) as Record<string, unknown>;
    expect(v).toMatchObject({ decay_state: 'lapsed', lapse_reason: 'manual', lapse_detail: 'Employer withdrew the reference.', evidence_class: 'e1_claimed' });
    await expect(platform.system.ask(Claim, c.id, 'lapse', { reason: 'again' }, caller)).rejects.toMatchObject({ code: 'conflict' });
  });

  it('a claim cannot be extended in place: a new claim supersedes it (superseded_by) and the old one stays', async () => {
    const s = subject();
    const old = await claim(s, 'ng-7412.fault_finding', { evidence_class: 'e2_attested', evidence_date: '2025-03-02' });
    const renewed = (await claim(s, 'ng-7412.fault_finding', { evidence_class: 'e3_documented', supersedes: old.id })) as unknown as { id: string; supersedes: string };
    expect(renewed.supersedes).toBe(old.id);
    const before = (await platform.system.get(Claim, old.id, ORG)) as Record<string, unknown>;
    expect(before).toMatchObject({ superseded_by: renewed.id, expires_at: '2027-03-02', evidence_class: 'e2_attested' });
    // superseding it again with another claim is refused
    await expect(claim(s, 'ng-7412.fault_finding', { supersedes: old.id })).rejects.toMatchObject({ code: 'conflict' });
    // a claim of another code cannot supersede it
    await expect(claim(s, 'ng-7412.safe_isolation', { supersedes: renewed.id })).rejects.toMatchObject({ code: 'validation_failed' });
  });

  it('claims are refused with a validation report: unknown code, e4 outside a verification, a future or already-lapsed evidence date', async () => {
    const s = subject();
    await expect(claim(s, 'ng-9999.nothing')).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(claim(s, 'ng-7412.fault_finding', { evidence_class: 'e4_verified_with_issuer' })).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(claim(s, 'ng-7412.fault_finding', { evidence_date: '2026-03-03' })).rejects.toMatchObject({ code: 'validation_failed' });
    const e = await claim(s, 'ng-7412.fault_finding', { evidence_class: 'e1_claimed', evidence_date: '2025-03-01' }).catch((x) => x);
    expect(e.code).toBe('validation_failed');
    expect(e.details.validation.entries[0]).toMatchObject({ code: 'evidence_expired', field: '/evidence_date' });
  });
});

describe('eligibility (spec 2.5: a statutory licence required by law is a gate)', () => {
  const check = (s: string, q: Parameters<ReturnType<typeof credentialEligibility>['check']>[2]) => credentialEligibility(platform).check(ORG, s, q);

  it('a required licence is a gate that no other evidence passes', async () => {
    const s = subject();
    for (const code of ELECTRICIAN) await claim(s, code, { level: 6, evidence_class: 'e5_demonstrated' });
    for (const code of ELECTRICIAN) await claim(s, code, { level: 6, evidence_class: 'e3_documented' });
    const r = check(s, { occupation_code: 'ng-7412' });
    expect(r.eligible).toBe(false);
    expect(r.reasons.map((x) => x.code)).toEqual(['licence_missing']);
    expect(r.claims.every((c) => c.freshness > 0.99 && c.evidence_class === 'e5_demonstrated')).toBe(true);
    // the same claims by code alone (no occupation, so no licence asked) pass
    expect(check(s, { claim_codes: ELECTRICIAN }).eligible).toBe(true);
    // a current licence opens the gate
    await licence(s, 'ng-7412', '2026-03-02', '2028-03-02');
    expect(check(s, { occupation_code: 'ng-7412' })).toMatchObject({ eligible: true, reasons: [] });
  });

  it('an occupation with no licence in law needs none (plumber ng-7126)', async () => {
    const s = subject();
    for (const code of ['ng-7126.pipework', 'ng-7126.sanitary_fittings', 'ng-7126.drainage']) await claim(s, code, { level: 2 });
    expect(check(s, { occupation_code: 'ng-7126' }).eligible).toBe(true);
  });

  it('a licence that expires closes the gate: licence.expired is committed at expiry and the reason is licence_expired', async () => {
    const s = subject();
    for (const code of ELECTRICIAN) await claim(s, code, { level: 3 });
    const id = await licence(s, 'ng-7412', '2024-03-02', '2026-04-01');
    expect(check(s, { occupation_code: 'ng-7412' }).eligible).toBe(true);
    await clock.advanceTo(Date.parse('2026-04-01T00:00:00Z'));
    const r = check(s, { occupation_code: 'ng-7412' });
    expect(r).toMatchObject({ eligible: false, reasons: [{ code: 'licence_expired', licence_id: id, occupation_code: 'ng-7412' }] });
    const events = (await actorEvents(platform, Licence, id)).map((e) => e.type);
    expect(events).toEqual(['licence.recorded', 'licence.expired']);
  });

  it('reasons name every shortfall: missing claim, lapsed claim, level too low', async () => {
    const s = subject();
    await claim(s, 'ng-7412.machine_wiring', { level: 1 }); // needs 2
    const lapsing = await claim(s, 'ng-7412.safe_isolation', { level: 3 });
    await platform.system.ask(Claim, lapsing.id, 'lapse', { reason: 'withdrawn' }, caller);
    await claim(s, 'ng-7412.fault_finding', { level: 3 });
    await licence(s, 'ng-7412', '2026-03-02', '2028-03-02');
    const r = check(s, { occupation_code: 'ng-7412' });
    expect(r.eligible).toBe(false);
    expect(r.reasons.map((x) => [x.code, x.claim_code])).toEqual([
      ['level_too_low', 'ng-7412.machine_wiring'],
      ['claim_lapsed', 'ng-7412.safe_isolation'],
      ['claim_missing', 'ng-7412.inspection_testing'],
      ['claim_missing', 'ng-7412.generator_maintenance'],
    ]);
    expect(r.reasons[0]).toMatchObject({ required_level: 2, held_level: 1 });
    expect(r.claims.find((c) => c.code === 'ng-7412.fault_finding')).toMatchObject({ level: 3, evidence_class: 'e3_documented' });
    expect(r.claims.find((c) => c.code === 'ng-7412.fault_finding')!.freshness).toBeGreaterThan(0.99);
  });

  it('claims rank by evidence class, then by freshness; a claim past expires_at counts as lapsed before its reminder runs', async () => {
    const s = subject();
    await claim(s, 'ng-7412.fault_finding', { evidence_class: 'e2_attested', evidence_date: '2026-03-02' });
    const older = await claim(s, 'ng-7412.fault_finding', { evidence_class: 'e3_documented', evidence_date: '2025-03-02' });
    const newer = await claim(s, 'ng-7412.fault_finding', { evidence_class: 'e3_documented', evidence_date: '2026-01-02' });
    const r = check(s, { claim_codes: ['ng-7412.fault_finding'] });
    expect(r.claims[0].claim_id).toBe(newer.id);
    expect(r.claims[0].freshness).toBeGreaterThan(0.9);
    expect(r.claims[0].freshness).toBeLessThan(1);
    void older;
    const fresh = check(s, { claim_codes: ['ng-7412.fault_finding'] }).claims[0].freshness;
    await clock.advance(30 * 86_400_000);
    expect(check(s, { claim_codes: ['ng-7412.fault_finding'] }).claims[0].freshness).toBeLessThan(fresh);
  });

  it('unknown occupations and claim codes are reasons, not faults', () => {
    expect(check('nobody', { occupation_code: 'ng-0000' })).toMatchObject({ eligible: false, reasons: [{ code: 'unknown_occupation' }] });
    expect(check('nobody', { claim_codes: ['x.y'] })).toMatchObject({ eligible: false, reasons: [{ code: 'unknown_claim_code', claim_code: 'x.y' }] });
  });
});
