/**
 * The live-passport gate across nodes (spec 2.4; spec 6: a revocation removes the worker from live
 * cascades within 60 s): two platforms on one NATS/Redis namespace. Passports change on node A; the
 * gate read on node B (memory, no network round trip) follows from the journal feed, and a node
 * that starts later rebuilds it from the feed alone.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { area as identity, identityGate } from '../../actors/identity/index.ts';
import { createPlatform, type Platform, stopPlatform } from '../../kernel/index.ts';
import { ManualClock } from '../../runtime/index.ts';
import { clusterTestStores, testNamespace } from '../../support/stores.ts';
import { until } from '../../support/until.ts';
import { ConsentToken } from '../../actors/identity/consent-token.ts';
import { IDENTITY } from '../../actors/identity/service.ts';
import { verify } from '../../actors/identity/verifications.ts';
import { BlocklistEntry } from '../../actors/identity/blocklist-entry.ts';

const ORG = 'org_gate';
const namespace = testNamespace('gate');
const clock = new ManualClock();
const platforms: Platform[] = [];

async function node(): Promise<Platform> {
  const stores = await clusterTestStores(clock, { namespace, ephemeral: false });
  const p = await createPlatform({ areas: [identity], stores, clock, config: {} });
  platforms.push(p);
  return p;
}

afterAll(async () => {
  for (const p of platforms.reverse()) await stopPlatform(p);
  await (await clusterTestStores(clock, { namespace, ephemeral: true })).close();
});

describe('the identity gate on every node (spec 2.4)', { timeout: 60_000 }, () => {
  it('a passport issued and ended on node A is live, then not live, on node B; a late node rebuilds it from the feed', async () => {
    const a = await node();
    const b = await node();
    const caller = { org: ORG, livemode: false, principal: 'api_key_test' };
    const subject = 'worker_gate_1';
    await a.system.ask(ConsentToken, 'anchor_pro_consent_gate1', 'create', { subject_ref: subject, purpose: 'employment_verification', checks: ['government_identifier', 'name_match', 'date_of_birth_match'], wording_version: 'v1', collected_channel: 'api', collected_at: clock.now(), expires_at: clock.now() + 86_400_000, livemode: false }, caller);
    const view = await verify(a, caller, 'anchor_pro_verification_gate1', { subject_ref: subject, consent_token_id: 'anchor_pro_consent_gate1', claims: { full_name: 'Adaeze Okafor', date_of_birth: '1990-01-01', government_identifier: '70123456789' } }, undefined);
    expect(view.outcome).toBe('resolved');
    expect(identityGate(a).isLive(ORG, subject)).toBe(true);
    await until(() => identityGate(b).isLive(ORG, subject), 10_000);
    await a.system.ask(BlocklistEntry, 'anchor_pro_blocklist_entry_gate1', 'create', { subject_ref: subject, reason: 'test', scope: 'subject', origin: 'staff', verification_id: null, livemode: false }, caller);
    await until(() => !identityGate(a).isLive(ORG, subject), 10_000);
    await until(() => !identityGate(b).isLive(ORG, subject), 10_000);
    const late = await node();
    await until(() => identityGate(late).livePassport(ORG, subject) === null && (late.services.require(IDENTITY).gate.size ?? 0) > 0, 10_000);
    await a.system.ask(BlocklistEntry, 'anchor_pro_blocklist_entry_gate1', 'reverse', { reason: 'mistake' }, caller);
    await until(() => identityGate(late).isLive(ORG, subject) && identityGate(b).isLive(ORG, subject), 10_000);
  });
});
