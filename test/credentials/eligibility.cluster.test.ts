/**
 * Eligibility in cluster mode (DESIGN "Gates between areas": each node answers from a read model in
 * memory, fed by the journal feed): a claim and a licence committed on one node reach the other
 * node's model through its per-node feed reader, and so does a licence's expiry. Two platforms on
 * one NATS/Redis namespace; runs in the cluster project only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatform, type Platform, stopPlatform } from '../../kernel/index.ts';
import { ManualClock } from '../../runtime/index.ts';
import { area as identity } from '../../actors/identity/index.ts';
import { area as credentialsArea, createClaim, credentialEligibility, Licence } from '../../actors/credentials/index.ts';
import { licenceIdOf } from '../../actors/credentials/ids.ts';
import { clusterTestStores, storeFamily, testNamespace } from '../../support/stores.ts';
import { until } from '../../support/until.ts';

const ORG = 'org_eligibility_cluster';
const clustered = storeFamily() === 'cluster';
let a: Platform;
let b: Platform;
const clock = new ManualClock('2026-03-02T09:00:00Z');

beforeAll(async () => {
  if (!clustered) return;
  const namespace = testNamespace('elig');
  a = await createPlatform({ areas: [identity, credentialsArea], stores: await clusterTestStores(clock, { namespace }), clock, config: {} });
  b = await createPlatform({ areas: [identity, credentialsArea], stores: await clusterTestStores(clock, { namespace }), clock, config: {} });
});
afterAll(async () => {
  if (a) await stopPlatform(a);
  if (b) await stopPlatform(b);
});

const CODES = ['ng-7126.pipework', 'ng-7126.sanitary_fittings', 'ng-7126.drainage'];

describe.runIf(clustered)('eligibility across nodes (cluster)', () => {
  it('claims committed on one node make the subject eligible on the other, from its own feed reader', async () => {
    const s = `plumber-${process.pid}`;
    let k = 0;
    for (const code of CODES)
      await createClaim(a, { org: ORG, livemode: false, idempotencyKey: `c-${++k}` }, { subject_ref: s, claim_code: code, level: 2, evidence_class: 'e3_documented', evidence_date: '2026-03-02' });
    expect(credentialEligibility(a).check(ORG, s, { occupation_code: 'ng-7126' }).eligible).toBe(true);
    await until(() => credentialEligibility(b).check(ORG, s, { occupation_code: 'ng-7126' }).eligible, 10_000);
  });

  it('a licence recorded on one node opens the gate on the other; its expiry closes it there too', async () => {
    const s = `electrician-${process.pid}`;
    const q = { claim_codes: ['ng-7412.fault_finding'], occupation_code: 'ng-7412' };
    await createClaim(a, { org: ORG, livemode: false, idempotencyKey: 'lic-claim' }, { subject_ref: s, claim_code: 'ng-7412.fault_finding', level: 3, evidence_class: 'e3_documented', evidence_date: '2026-03-02' });
    await until(() => credentialEligibility(b).check(ORG, s, q).reasons.map((r) => r.code).join() === 'licence_missing', 10_000);
    const id = licenceIdOf(ORG, s, 'ng-7412', 'proof_issuer_nemsa');
    await a.system.ask(Licence, id, 'record', {
      verification_id: 'proof_academic_verification_cluster1', subject_ref: s, occupation_code: 'ng-7412', issuer_id: 'proof_issuer_nemsa', issuer_name: 'NEMSA',
      licence_kind: 'nemsa_competency_certificate', valid_from: '2026-03-02', expires_at: '2026-04-01', livemode: false, mocked: true,
    }, { org: ORG });
    await until(() => credentialEligibility(b).check(ORG, s, q).eligible, 10_000);
    await clock.advanceTo(Date.parse('2026-04-01T00:00:00Z'));
    expect(credentialEligibility(b).check(ORG, s, q).reasons.map((r) => r.code)).toEqual(['licence_expired']);
    await until(async () => (await b.system.state<{ status: string }>(Licence, id, ORG)).status === 'expired', 10_000);
  });
});
