/**
 * The stream sequencer (spec 6 `sequence`: per organisation and stream, from 1 with no gaps; an
 * event offered again keeps its number). The event feed asks once per batch (`assign_many`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EventStream, streamId } from '../../actors/delivery/event-stream.ts';
import { startPlatform, type TestPlatform } from './support.ts';

const ORG = 'org_Aaaaaaaaaaaaaaaaaaaaaa';
const opts = { org: ORG, principal: 'system' };
const id = streamId(ORG, 'payroll');
const batch = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ({ event_id: `evt_${from + i}`, position: from + i }));

let tp: TestPlatform | undefined;
afterEach(async () => {
  await tp?.stop();
  tp = undefined;
});

describe('event stream sequencer (spec 6 sequence)', () => {
  it('a batch gets consecutive numbers after the last single assignment, in one journal event', async () => {
    tp = await startPlatform();
    expect(await tp.platform.system.ask(EventStream, id, 'assign', { stream: 'payroll', event_id: 'evt_1', position: 1 }, opts)).toEqual({ sequence: 1 });
    expect(await tp.platform.system.ask(EventStream, id, 'assign_many', { stream: 'payroll', events: batch(2, 5) }, opts)).toEqual({ sequences: [2, 3, 4, 5] });
    await tp.platform.system.flushed(); // answered is decided; on disk once flushed (Journal.ordered)
    const journal = await tp.stores.journal.read(`event_stream.${id}`, 0);
    expect(journal.map((e) => e.type)).toEqual(['stream.assigned', 'stream.assigned_many']);
    expect(await tp.platform.system.ask(EventStream, id, 'assign', { stream: 'payroll', event_id: 'evt_6', position: 6 }, opts)).toEqual({ sequence: 6 });
  });

  it('a batch offered again keeps its numbers and commits nothing; one offered again in part numbers only the new events', async () => {
    tp = await startPlatform();
    await tp.platform.system.ask(EventStream, id, 'assign_many', { stream: 'payroll', events: batch(1, 3) }, opts);
    expect(await tp.platform.system.ask(EventStream, id, 'assign_many', { stream: 'payroll', events: batch(1, 3) }, opts)).toEqual({ sequences: [1, 2, 3] });
    await tp.platform.system.flushed(); // answered is decided; on disk once flushed (Journal.ordered)
    expect(await tp.stores.journal.read(`event_stream.${id}`, 0)).toHaveLength(1);
    expect(await tp.platform.system.ask(EventStream, id, 'assign_many', { stream: 'payroll', events: batch(2, 5) }, opts)).toEqual({ sequences: [2, 3, 4, 5] });
    expect(await tp.platform.system.ask(EventStream, id, 'assign_many', { stream: 'payroll', events: batch(6, 6) }, opts)).toEqual({ sequences: [6] });
  });

  it('the numbers survive passivation: the state is loaded again from its snapshot', async () => {
    tp = await startPlatform();
    await tp.platform.system.ask(EventStream, id, 'assign_many', { stream: 'payroll', events: batch(1, 3) }, opts);
    await tp.platform.system.passivateWhere(() => true);
    expect(await tp.platform.system.ask(EventStream, id, 'assign_many', { stream: 'payroll', events: batch(3, 4) }, opts)).toEqual({ sequences: [3, 4] });
    expect(await tp.platform.system.state(EventStream, id, ORG)).toMatchObject({ last_sequence: 4 });
  });
});
