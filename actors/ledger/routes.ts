/**
 * Ledger routes (spec 4.2, scope ledger:read). Read-only: no route writes a posting and no ledger
 * write scope exists (spec 1 rule 5).
 */
import { Type } from '@sinclair/typebox';
import { idOf, listEnvelope, listPage, ListQuery, type ListQueryValue, parseListQuery, route, type RouteDef } from '../../kernel/index.ts';
import { Posting, POSTING_PREFIX } from './posting.ts';
import { accountViews } from './reads.ts';

/**
 * One page of the chart, already in code order, by limit and starting_after (spec 4 preamble): an
 * id that is not one of the organisation's accounts gives an empty page, not a refusal.
 */
function codeOrderPage<T extends { id: string }>(all: T[], query: ListQueryValue) {
  const { limit, after } = parseListQuery(query);
  let from = 0;
  if (after !== undefined) {
    const i = all.findIndex((a) => a.id === after);
    if (i < 0) return listEnvelope([], false);
    from = i + 1;
  }
  return listEnvelope(all.slice(from, from + limit), from + limit < all.length);
}

export const routes: RouteDef[] = [
  route({
    method: 'GET',
    path: '/v1/ledger/accounts',
    auth: 'key',
    module: 'ledger',
    idempotent: false,
    query: ListQuery,
    summary: 'List ledger accounts in code order, each with its balance computed from posting lines.',
    specGap: 'The starting chart of accounts is not shown; see docs/gaps.md#ledger.',
    handler: async (req) => codeOrderPage(await accountViews(req.platform.system, req.org, req.livemode), req.query),
  }),
  route({
    method: 'GET',
    path: '/v1/ledger/postings',
    auth: 'key',
    module: 'ledger',
    idempotent: false,
    query: ListQuery,
    summary: 'List ledger postings, newest first, lines included.',
    handler: (req) => listPage(req.platform.system, Posting, req.org, 'all', req.query, 'desc'),
  }),
  route({
    method: 'GET',
    path: '/v1/ledger/postings/{posting_id}',
    auth: 'key',
    module: 'ledger',
    idempotent: false,
    summary: 'Retrieve a ledger posting with its lines.',
    handler: async (req) => req.platform.system.get(Posting, idOf(req.params.posting_id, POSTING_PREFIX, 'ledger posting'), req.org),
  }),
];
