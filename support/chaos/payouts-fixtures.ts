/**
 * A test-only area for the payouts failover test (test/cluster/payouts-failover.test.ts) and the chaos bench's payout scenario: issues
 * live passports for many payees at once on the identity module's passport actors, as the payouts
 * HTTP tests do in process (test/payouts/support.ts livePassports); how a passport is earned is the
 * identity tests' concern. Mounted only by support/chaos/payouts-node-main.ts.
 */
import { Type } from '@sinclair/typebox';
import { type Area, route } from '../../kernel/index.ts';
import { passportIdOf, PASSPORT_KIND } from '../../actors/identity/index.ts';

export const payoutsFixtureArea: Area = {
  name: 'test_payouts_fixtures',
  kinds: [],
  routes: [
    route({
      method: 'POST',
      path: '/v1/test_payouts/passports',
      auth: 'key',
      module: null,
      idempotent: true,
      body: Type.Object({ payee_refs: Type.Array(Type.String(), { maxItems: 2_000 }) }),
      summary: 'Test only: issue a live passport for each payee.',
      handler: async (req) => {
        const refs = (req.body as { payee_refs: string[] }).payee_refs;
        await Promise.all(refs.map((ref) => req.platform.system.ask(PASSPORT_KIND, passportIdOf(req.org, ref), 'issue', { subject_ref: ref, verification_id: `anchor_pro_verification_f${ref}`, assurance: 'dal_2', consent_token_id: null, livemode: false, mocked: true }, { org: req.org, principal: 'system', dedupeId: `fixture:${ref}` })));
        return { issued: refs.length };
      },
    }),
  ],
};
