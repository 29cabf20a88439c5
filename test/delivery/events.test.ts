import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, MODULES } from '../../kernel/index.ts';
import { FakeRun, call, startPlatform, stopKeepingStores, type TestPlatform } from './support.ts';

const A = { org: 'org_Aaaaaaaaaaaaaaaaaaaaaa' };
const B = { org: 'org_Bbbbbbbbbbbbbbbbbbbbbb' };

let tp: TestPlatform | undefined;
afterEach(async () => {
  await tp?.stop();
  tp = undefined;
});

const ask = (t: TestPlatform, id: string, cmd: string, org = A.org, requestId?: string, payload: unknown = {}) =>
  t.platform.system.ask(FakeRun, id, cmd as never, payload as never, { org, requestId, principal: 'api_key_x' });

async function allEvents(t: TestPlatform, who = A, path = '/v1/payroll/events') {
  const out: any[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await call(t.platform, 'GET', path, who, { query: { limit: 100, ...(after ? { starting_after: after } : {}) } });
    out.push(...page.data);
    if (!page.has_more) return out;
    after = page.data[page.data.length - 1].id;
  }
}

describe('events (spec 6)', () => {
  it('envelope - exactly id, type, schema_version, org_id, sequence, occurred_at, request_id, livemode, mocked, source, data (spec 6)', async () => {
    tp = await startPlatform();
    await ask(tp, 'run_fake_1', 'create', A.org, 'req_create1');
    await tp.clock.advance(1000);
    await ask(tp, 'run_fake_1', 'approve', A.org, 'req_approve1');
    await tp.platform.system.settle();
    const events = await allEvents(tp);
    expect(events).toHaveLength(2);
    const approved = events[1];
    expect(Object.keys(approved)).toEqual(['id', 'type', 'schema_version', 'org_id', 'sequence', 'occurred_at', 'request_id', 'livemode', 'mocked', 'source', 'data']);
    expect(approved).toMatchObject({
      type: 'run.approved', schema_version: 1, org_id: A.org, sequence: 2, occurred_at: new Date(tp.clock.now()).toISOString(),
      request_id: 'req_approve1', livemode: false, mocked: false, source: 'run',
      data: { id: 'run_fake_1', object: 'fake_run', status: 'approved' },
    });
    expect(approved.id).toMatch(/^evt_/);
    // The id is the journal event's id (spec 6: the same on the list and on delivery).
    const journal = await tp.stores.journal.read('fake_run.run_fake_1', 0);
    expect(events.map((e) => e.id)).toEqual([journal[0].id, journal[1].id]);
    expect(await call(tp.platform, 'GET', `/v1/payroll/events/${approved.id}`, A)).toEqual(approved);
  });

  it('a public event is kept as the bytes delivered, and one recorded earlier with its envelope as an object still reads the same (spec 6: a read by id)', async () => {
    tp = await startPlatform();
    await ask(tp, 'run_fake_1', 'create', A.org, 'req_create1');
    await tp.platform.system.settle();
    const [e] = await allEvents(tp);
    const stored = await tp.stores.kv.get<{ org: string; record: { stream: string; sequence: number; body: string } }>(`derived:public_event:${e.id}`);
    expect(stored?.record).toEqual({ stream: 'payroll', sequence: 1, body: JSON.stringify(e) });
    await tp.stores.kv.set(`derived:public_event:${e.id}`, { org: A.org, record: { stream: 'payroll', envelope: e } });
    expect(await call(tp.platform, 'GET', `/v1/payroll/events/${e.id}`, A)).toEqual(e);
    expect(await allEvents(tp)).toEqual([e]);
  });

  it('request_id - absent for events without a causing request (spec 6)', async () => {
    tp = await startPlatform();
    await ask(tp, 'run_fake_1', 'create', A.org, undefined);
    await tp.platform.system.settle();
    const [e] = await allEvents(tp);
    expect('request_id' in e).toBe(false);
  });

  it('data - the record as of each event, also when one commit holds two events (spec 6)', async () => {
    tp = await startPlatform();
    await ask(tp, 'run_fake_1', 'create');
    await ask(tp, 'run_fake_1', 'approve_and_complete');
    await tp.platform.system.settle();
    const events = await allEvents(tp);
    expect(events.map((e) => [e.type, e.data.status, e.schema_version])).toEqual([
      ['run.created', 'draft', 1],
      ['run.approved', 'approved', 1],
      ['payroll.run.completed', 'completed', 2],
    ]);
  });

  it('data - the record as of each event when several commands commit together before the feed reads them (spec 6)', async () => {
    tp = await startPlatform();
    await Promise.all([ask(tp, 'run_fake_2', 'create'), ask(tp, 'run_fake_2', 'approve'), ask(tp, 'run_fake_3', 'create')]);
    await ask(tp, 'run_fake_3', 'approve_and_complete');
    await tp.platform.system.settle();
    const events = await allEvents(tp);
    expect(events.map((e) => [e.data.id, e.type, e.data.status])).toEqual([
      ['run_fake_2', 'run.created', 'draft'],
      ['run_fake_2', 'run.approved', 'approved'],
      ['run_fake_3', 'run.created', 'draft'],
      ['run_fake_3', 'run.approved', 'approved'],
      ['run_fake_3', 'payroll.run.completed', 'completed'],
    ]);
  });

  it('sequence - per organisation and per stream, from 1, without gaps under concurrent commits (spec 6)', async () => {
    tp = await startPlatform();
    const runs = 40;
    await Promise.all(
      Array.from({ length: runs }, async (_, i) => {
        for (const org of [A.org, B.org]) {
          const id = `run_fake_${org.slice(4, 5)}${i}`;
          await ask(tp!, id, 'create', org);
          await ask(tp!, id, 'approve', org);
        }
      }),
    );
    await tp.platform.system.settle();
    for (const who of [A, B]) {
      const events = await allEvents(tp, who);
      expect(events).toHaveLength(runs * 2);
      expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: runs * 2 }, (_, i) => i + 1));
      expect(events.every((e) => e.org_id === who.org)).toBe(true);
      expect(new Set(events.map((e) => e.id)).size).toBe(runs * 2);
    }
  });

  it('events list - undeclared journal events are not public events but are audited (spec 3, 6)', async () => {
    tp = await startPlatform();
    await ask(tp, 'run_fake_1', 'create');
    await ask(tp, 'run_fake_1', 'note', A.org, 'req_note', { note: 'x' });
    await tp.platform.system.settle();
    expect((await allEvents(tp)).map((e) => e.type)).toEqual(['run.created']);
    const audit = await call(tp.platform, 'GET', '/v1/payroll/audit_entries', A, { query: {} });
    expect(audit.data.map((a: any) => a.action)).toEqual(['run.noted', 'run.created']);
    expect(audit.data[0]).toMatchObject({ object: 'audit_entry', record_type: 'fake_run', record_id: 'run_fake_1', record_version: 2, request_id: 'req_note', principal: 'api_key_x' });
    expect(await call(tp.platform, 'GET', `/v1/payroll/audit_entries/${audit.data[0].id}`, A)).toEqual(audit.data[0]);
    const one = await call(tp.platform, 'GET', '/v1/payroll/audit_entries', A, { query: { record_id: 'run_fake_1', limit: 1 } });
    expect(one).toMatchObject({ object: 'list', has_more: true });
  });

  it('audit entries - one per recorded transition of the module kinds, none for other areas (spec 3)', async () => {
    tp = await startPlatform();
    for (let i = 0; i < 3; i++) {
      await ask(tp, `run_fake_${i}`, 'create');
      await ask(tp, `run_fake_${i}`, 'approve');
    }
    await call(tp.platform, 'POST', '/v1/webhook_endpoints', A, { body: { url: 'http://127.0.0.1:9/x' } });
    await tp.platform.system.settle();
    const audit = await call(tp.platform, 'GET', '/v1/payroll/audit_entries', A, { query: { limit: 100 } });
    expect(audit.data).toHaveLength(6);
    expect(new Set(audit.data.map((a: any) => a.event_id)).size).toBe(6);
  });

  it('module reads - served for every module; empty where nothing happened (spec 4, 6)', async () => {
    tp = await startPlatform();
    await ask(tp, 'run_fake_1', 'create');
    await tp.platform.system.settle();
    for (const m of MODULES) {
      const events = await call(tp.platform, 'GET', `${m.path}/events`, A, { query: {} });
      const audit = await call(tp.platform, 'GET', `${m.path}/audit_entries`, A, { query: {} });
      const expected = m.area === 'payroll' ? 1 : 0;
      expect([m.area, events.data.length, audit.data.length]).toEqual([m.area, expected, expected]);
    }
  });

  it('event read - another organisation gets 403 organisation_mismatch; another module 404 (spec 5.5, 7)', async () => {
    tp = await startPlatform();
    await ask(tp, 'run_fake_1', 'create');
    await tp.platform.system.settle();
    const [e] = await allEvents(tp);
    await expect(call(tp.platform, 'GET', `/v1/payroll/events/${e.id}`, B)).rejects.toMatchObject({ code: 'organisation_mismatch' });
    await expect(call(tp.platform, 'GET', `/v1/identity/events/${e.id}`, A)).rejects.toMatchObject({ code: 'not_found' });
    await expect(call(tp.platform, 'GET', '/v1/payroll/events/evt_nope', A)).rejects.toBeInstanceOf(ApiError);
    expect((await allEvents(tp, B))).toEqual([]);
    // A foreign starting_after is an empty page (spec 4).
    expect((await call(tp.platform, 'GET', '/v1/payroll/events', B, { query: { starting_after: e.id } })).data).toEqual([]);
  });

  it('restart - the feed resumes from its cursor: nothing lost, nothing twice (spec 6)', async () => {
    tp = await startPlatform();
    await ask(tp, 'run_fake_1', 'create');
    await tp.platform.system.settle();
    await stopKeepingStores(tp.platform);
    // Commits while the event system is down: a platform with the same stores picks them up.
    const again = await startPlatform({ clock: tp.clock, stores: tp.stores });
    tp = again;
    await ask(tp, 'run_fake_1', 'approve');
    await ask(tp, 'run_fake_2', 'create');
    await tp.platform.system.settle();
    const events = await allEvents(tp);
    expect(events.map((e) => [e.sequence, e.type])).toEqual([[1, 'run.created'], [2, 'run.approved'], [3, 'run.created']]);
  });
});
