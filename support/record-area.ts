/**
 * A bench-only area for the chaos bench (never mounted by the platform): a keyed create as the
 * real areas make one (kernel createdId and createDedupe: the record's id derived from the
 * Idempotency-Key, its command deduped on it) and a read. Every event names its key, so the bench
 * counts from the journal how often each key was created; each execution of the handler is counted
 * in the key-value store, so it also sees keys a survivor executed again after a takeover.
 *
 * status   command   condition   event            next
 * -------  --------  ----------  ---------------  -------
 * (none)   create    -           record.created   created
 * created  create    -           record.created   created (a duplicate: the bench counts it)
 */
import { Type } from '@sinclair/typebox';
import { type Area, assertNever, callerOf, createDedupe, createdId, idOf, route } from '../kernel/index.ts';
import { defineActor } from '../runtime/index.ts';

export const RECORDS_PATH = '/v1/bench/records';
/** Key-value counter of a key's executions: `${EXECUTIONS}${org}:${key}`. */
export const EXECUTIONS = 'bench:exec:';

interface RecordState {
  id: string;
  key: string;
  n: number;
}
type RecordEvent = { type: 'record.created'; key: string; n: number };

export const BenchRecord = defineActor({
  kind: 'bench_record',
  prefix: 'bcr_',
  creates: ['create'],
  initial: (id: string): RecordState => ({ id, key: '', n: 0 }),
  decide: {
    create: (_s: RecordState, cmd: { key: string; n: number }) => [{ type: 'record.created' as const, key: cmd.key, n: cmd.n }],
  },
  evolve(s: RecordState, e: RecordEvent): RecordState {
    switch (e.type) {
      case 'record.created':
        return { ...s, key: e.key, n: e.n };
      default:
        return assertNever(e.type);
    }
  },
  view: (s: RecordState) => ({ id: s.id, object: 'bench_record', key: s.key, n: s.n }),
});

export const recordArea: Area = {
  name: 'bench_record',
  kinds: [BenchRecord],
  routes: [
    route({
      method: 'POST',
      path: RECORDS_PATH,
      auth: 'key',
      module: null,
      idempotent: true,
      status: 201,
      body: Type.Object({ n: Type.Integer() }),
      summary: 'bench: a keyed create',
      handler: async (req) => {
        const caller = callerOf(req);
        await req.platform.stores.kv.incr(`${EXECUTIONS}${caller.org}:${caller.idempotencyKey}`);
        return req.platform.system.ask(BenchRecord, createdId(caller, BenchRecord.prefix), 'create', { key: caller.idempotencyKey!, n: req.body.n }, { ...caller, dedupeId: createDedupe(caller) });
      },
    }),
    route({
      method: 'GET',
      path: `${RECORDS_PATH}/{id}`,
      auth: 'key',
      module: null,
      idempotent: false,
      summary: 'bench: a record',
      handler: (req) => req.platform.system.get(BenchRecord, idOf(req.params.id, BenchRecord.prefix, 'record'), req.org),
    }),
  ],
};
