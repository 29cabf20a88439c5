/**
 * A store fault is a retryable 503, never a 500 (spec 7 Errors; docs/errors.md `unavailable`,
 * `outcome_unknown`; docs/gaps.md#runtime "A store fault is a 503, never a 500"). Over the test
 * family's own stores (memory or local), wrapped in a double that makes chosen calls fail the way
 * each family's client fails: the credential lookup, a list, and a create before and after its
 * handler ran. A bug (a TypeError) is still a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../runtime/index.ts';
import { type Stores, StoreUnavailableError } from '../../stores/index.ts';
import { type Harness, startHarness } from '../../support/http.ts';
import { storeFamily, testStores } from '../../support/stores.ts';
import { connect, upgrade } from '../../support/ws.ts';
import { HEARTBEAT_SOCKET_PATH } from '../../actors/allocation/index.ts';
import { makeAvailable, reading, workerId } from '../allocation/support.ts';

/** Errors as the families' clients throw them (matched by their names and messages, not classes). */
function named(name: string, message: string): Error {
  const e = new Error(message);
  e.name = name;
  return e;
}
const FAULTS: Record<string, () => Error> = {
  'StoreUnavailableError (the stores contract)': () => new StoreUnavailableError('JetStream key-value: timed out'),
  'ioredis MaxRetriesPerRequestError': () => named('MaxRetriesPerRequestError', 'Reached the max retries per request limit (which is 3).'),
  'ioredis connection closed': () => new Error('Connection is closed.'),
  'nats.js TimeoutError': () => named('TimeoutError', 'timeout'),
  'JetStream API error': () => named('JetStreamApiError', 'no suitable peers for placement'),
  'lmdb error': () => new Error('MDB_PANIC: Update of meta page failed or environment had fatal error'),
};

/** The stores, with a fault switched on per `<store>.<method>` (kv.get, indexes.page, ...). */
class FaultyStores {
  readonly faults = new Map<string, () => Error>();
  readonly stores: Stores;

  constructor(inner: Stores) {
    const faults = this.faults;
    const wrap = <T extends object>(name: string, target: T): T =>
      new Proxy(target, {
        get(t, p) {
          const v = Reflect.get(t, p, t);
          if (typeof v !== 'function') return v;
          return (...args: unknown[]) => {
            const fault = faults.get(`${name}.${String(p)}`);
            return fault ? Promise.reject(fault()) : v.apply(t, args);
          };
        },
      });
    const wrapped = { kv: wrap('kv', inner.kv), indexes: wrap('indexes', inner.indexes), journal: wrap('journal', inner.journal), readings: wrap('readings', inner.readings), ...(inner.claims ? { claims: wrap('claims', inner.claims) } : {}) };
    this.stores = new Proxy(inner, {
      get(t, p) {
        if (p in wrapped) return wrapped[p as keyof typeof wrapped];
        const v = Reflect.get(t, p, t);
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          const fault = faults.get(`stores.${String(p)}`);
          return fault ? Promise.reject(fault()) : v.apply(t, args);
        };
      },
    });
  }
}

describe('a store fault is 503, never 500 (spec 7 Errors; docs/errors.md)', () => {
  let h: Harness;
  let double: FaultyStores;
  const quiet = console.error;

  beforeAll(async () => {
    const clock = new ManualClock();
    double = new FaultyStores(await testStores(clock));
    h = await startHarness({ clock, stores: double.stores });
    console.error = () => {};
  });
  afterAll(async () => {
    console.error = quiet;
    double.faults.clear();
    await h?.close();
  });

  async function during<T>(at: string, fault: () => Error, run: () => Promise<T>): Promise<T> {
    double.faults.set(at, fault);
    try {
      return await run();
    } finally {
      double.faults.delete(at);
    }
  }

  it.each(Object.entries(FAULTS))('authentication: a credential lookup that fails (%s) is 503 unavailable, retryable', async (_name, fault) => {
    const r = await during('kv.get', fault, () => h.request('GET', '/v1/api_keys'));
    expect({ status: r.status, error: r.body.error }).toMatchObject({ status: 503, error: { code: 'unavailable', retryable: true } });
  });

  it.each(Object.entries(FAULTS))('a list whose index read fails (%s) is 503 unavailable, retryable', async (_name, fault) => {
    const r = await during('indexes.page', fault, () => h.request('GET', '/v1/api_keys'));
    expect({ status: r.status, error: r.body.error }).toMatchObject({ status: 503, error: { code: 'unavailable', retryable: true } });
    expect((await h.request('GET', '/v1/api_keys')).status).toBe(200);
  });

  it('a create whose idempotency claim fails is 503 unavailable (nothing ran), and the retry creates it once', async () => {
    const fault = FAULTS['ioredis connection closed'];
    // where claims are held apart from the records (Stores.claims), the claim is made there
    const r = await during(`${h.platform.stores.claims ? 'claims' : 'kv'}.setIfAbsent`, fault, () => h.request('POST', '/v1/api_keys', { body: { name: 'claim fault' }, idempotencyKey: 'sf-claim' }));
    expect({ status: r.status, error: r.body.error }).toMatchObject({ status: 503, error: { code: 'unavailable', retryable: true } });
    const retry = await h.request('POST', '/v1/api_keys', { body: { name: 'claim fault' }, idempotencyKey: 'sf-claim' });
    expect(retry.status).toBe(200);
    const named = (await h.request('GET', '/v1/api_keys?limit=100')).body.data.filter((k: { name: string }) => k.name === 'claim fault');
    expect(named).toHaveLength(1);
  });

  it('a create whose handler meets a store fault after writing is 503 outcome_unknown; the retry with the same Idempotency-Key completes it once', async () => {
    const r = await during('kv.set', FAULTS['StoreUnavailableError (the stores contract)'], () =>
      h.request('POST', '/v1/api_keys', { body: { name: 'handler fault' }, idempotencyKey: 'sf-handler' }),
    );
    expect({ status: r.status, error: r.body.error }).toMatchObject({ status: 503, error: { code: 'outcome_unknown', retryable: true } });
    const retry = await h.request('POST', '/v1/api_keys', { body: { name: 'handler fault' }, idempotencyKey: 'sf-handler' });
    expect(retry.status).toBe(200);
    const named = (await h.request('GET', '/v1/api_keys?limit=100')).body.data.filter((k: { name: string }) => k.name === 'handler fault');
    expect(named.map((k: { id: string }) => k.id)).toEqual([retry.body.id]);
    expect((await h.request('GET', '/v1/api_keys', { key: retry.body.key })).status).toBe(200);
  });

  it('a write whose idempotency record cannot be kept answers what it did (200), not a fault: the work is done', async () => {
    const c = await h.request('POST', '/v1/api_keys', { body: { name: 'record fault' }, idempotencyKey: 'sf-record-create' });
    expect(c.status).toBe(200);
    // revoking writes no key-value record of its own, so the only failing write is the idempotency record
    const r = await during('kv.set', FAULTS['JetStream API error'], () => h.request('POST', `/v1/api_keys/${c.body.id}/revoke`, { idempotencyKey: 'sf-record-revoke' }));
    expect({ status: r.status, revoked: r.body.revoked_at !== null }).toEqual({ status: 200, revoked: true });
    expect((await h.request('GET', '/v1/api_keys', { key: c.body.key })).status).toBe(401);
  });

  it('a create whose journal append fails is 503, retryable', async () => {
    // A failed append fails the flush too, as a journal's writer does (an answer may go ahead of its commit).
    const append = () => h.request('POST', '/v1/api_keys', { body: { name: 'append fault' }, idempotencyKey: 'sf-append' });
    const r = await during('journal.appendMany', FAULTS['lmdb error'], () => during('journal.append', FAULTS['lmdb error'], () => during('stores.flushed', FAULTS['lmdb error'], append)));
    expect({ status: r.status, retryable: r.body.error.retryable }).toEqual({ status: 503, retryable: true });
  });

  it.runIf(storeFamily() === 'local')('a write whose flush to disk fails is 503 outcome_unknown (it may be on disk); the retry with the same Idempotency-Key replays or completes it once', async () => {
    const r = await during('stores.flushed', FAULTS['lmdb error'], () => h.request('POST', '/v1/api_keys', { body: { name: 'flush fault' }, idempotencyKey: 'sf-flush' }));
    expect({ status: r.status, error: r.body.error }).toMatchObject({ status: 503, error: { code: 'outcome_unknown', retryable: true } });
    const retry = await h.request('POST', '/v1/api_keys', { body: { name: 'flush fault' }, idempotencyKey: 'sf-flush' });
    expect(retry.status).toBe(200);
    const named = (await h.request('GET', '/v1/api_keys?limit=100')).body.data.filter((k: { name: string }) => k.name === 'flush fault');
    expect(named.map((k: { id: string }) => k.id)).toEqual([retry.body.id]);
  });

  it('sign-in whose store read fails is 503, retryable', async () => {
    const body = { email: h.registration.email, password: h.registration.password };
    const r = await during('kv.get', FAULTS['nats.js TimeoutError'], () => h.request('POST', '/v1/sessions', { body, key: null }));
    expect({ status: r.status, retryable: r.body.error.retryable }).toEqual({ status: 503, retryable: true });
  });

  it('the heartbeat socket: an upgrade whose credential lookup fails is 503; a frame whose readings cannot be stored is an outcome_unknown error frame, and the connection stays open', async () => {
    const refused = await during('kv.get', FAULTS['ioredis MaxRetriesPerRequestError'], () => upgrade(h.url + HEARTBEAT_SOCKET_PATH, { 'service-api-key': h.key }));
    expect(refused.ok ? 101 : { status: refused.status, code: JSON.parse(refused.body).error.code }).toEqual({ status: 503, code: 'unavailable' });

    const worker = workerId();
    await makeAvailable(h, worker);
    const s = await connect(h.url + HEARTBEAT_SOCKET_PATH, { 'service-api-key': h.key });
    try {
      const frame = JSON.stringify({ worker_id: worker, readings: [reading(h.clock.now())] });
      const failed = await during('readings.append', FAULTS['StoreUnavailableError (the stores contract)'], async () => {
        s.send(frame);
        return JSON.parse((await s.next()).text);
      });
      expect(failed.error).toMatchObject({ code: 'outcome_unknown', retryable: true });
      s.send(frame);
      expect(JSON.parse((await s.next()).text).error).toBeUndefined();
    } finally {
      s.close();
    }
  });

  it('a bug is not a store fault: a TypeError from a store call stays 500 internal_error, not retryable', async () => {
    const r = await during('indexes.page', () => new TypeError("Cannot read properties of undefined (reading 'ids')"), () => h.request('GET', '/v1/api_keys'));
    expect({ status: r.status, error: r.body.error }).toMatchObject({ status: 500, error: { code: 'internal_error', retryable: false } });
  });
});
