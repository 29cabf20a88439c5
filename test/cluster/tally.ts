/**
 * A test-only area for the failover test (DESIGN "Sharding"): one write endpoint whose command carries the
 * request's Idempotency-Key as its dedupe id, so a write retried after its node died applies
 * exactly once even when the first attempt had committed.
 *
 * status   command   condition   event         next
 * -------  --------  ----------  ------------  -----
 * (none)   add       -           tally.added   open
 * open     add       -           tally.added   open
 */
import { Type } from '@sinclair/typebox';
import { type Area, assertNever, callerOf, createDedupe, idOf, route } from '../../kernel/index.ts';
import { defineActor } from '../../runtime/index.ts';

interface TallyState {
  id: string;
  org: string;
  total: number;
}
type TallyEvent = { type: 'tally.added'; n: number };

export const Tally = defineActor({
  kind: 'test_tally',
  prefix: 'tly_',
  creates: ['add'],
  initial: (id: string, org: string): TallyState => ({ id, org, total: 0 }),
  decide: {
    add: (_s: TallyState, cmd: { n: number }) => [{ type: 'tally.added' as const, n: cmd.n }],
  },
  evolve(s: TallyState, e: TallyEvent): TallyState {
    switch (e.type) {
      case 'tally.added':
        return { ...s, total: s.total + e.n };
      default:
        return assertNever(e.type);
    }
  },
  view: (s: TallyState) => ({ id: s.id, object: 'test_tally', total: s.total }),
});

export const tallyArea: Area = {
  name: 'test_tally',
  kinds: [Tally],
  routes: [
    route({
      method: 'POST',
      path: '/v1/test_tallies/{id}/add',
      auth: 'key',
      module: null,
      idempotent: true,
      body: Type.Object({ n: Type.Integer() }),
      summary: 'Test only: add n to a tally.',
      handler: (req) =>
        req.platform.system.ask(Tally, idOf(req.params.id, Tally.prefix, 'tally'), 'add', { n: req.body.n }, { ...callerOf(req), dedupeId: createDedupe(req) }),
    }),
    route({
      method: 'GET',
      path: '/v1/test_tallies/{id}',
      auth: 'key',
      module: null,
      idempotent: false,
      summary: 'Test only: a tally.',
      handler: (req) => req.platform.system.get(Tally, idOf(req.params.id, Tally.prefix, 'tally'), req.org),
    }),
  ],
};
