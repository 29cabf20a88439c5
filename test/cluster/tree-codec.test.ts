/**
 * The cluster stores' codec and the remote-ask wire (stores/cluster/codec.ts, runtime/cluster/wire.ts)
 * write values without reference tracking: a tree is written as the structured-clone packer writes
 * it, so readers of either form are unchanged; a cycle is still written, by that packer.
 */
import { Packr } from 'msgpackr';
import { expect, it } from 'vitest';
import { pack, unpack } from '../../stores/cluster/codec.ts';
import { decodeReply, decodeRequest, encode } from '../../runtime/cluster/wire.ts';

const referencing = new Packr({ structuredClone: true, useRecords: false, useBigIntExtension: true } as ConstructorParameters<typeof Packr>[0]);

const event = { version: 3, id: 'evt_1', type: 'meter.added', data: { n: 1, tags: new Set(['a', 'b']), big: 12n ** 30n, at: null, list: [1, 'x', { y: true }] }, at: 1_767_600_000_000, org: 'org_1' };

it('a tree is written as the structured-clone packer writes it, and reads back the same', () => {
  const commit = [3, 17, [event]];
  expect(Buffer.compare(pack(commit), referencing.pack(commit))).toBe(0);
  expect(unpack(pack(commit))).toEqual(commit);
  const reply = { t: 'ok' as const, value: { id: 'mtr_1', total: 5, seen: new Set([1, 2]), due: 9n } };
  expect(Buffer.compare(Buffer.from(encode(reply)), referencing.pack(reply))).toBe(0);
  expect(decodeReply(encode(reply))).toEqual(reply);
  const request = { kind: 'bench_meter', id: 'mtr_1', call: { op: 'ask' as const, command: 'add', payload: { n: 1 }, opts: { org: 'org_1' } } };
  expect(Buffer.compare(Buffer.from(encode(request)), referencing.pack(request))).toBe(0);
  expect(decodeRequest(encode(request))).toEqual(request);
});

it('a value with a cycle is written as the structured-clone packer writes it, and the packers write on after it', () => {
  const data: Record<string, unknown> = { n: 1 };
  data.self = data;
  expect(Buffer.compare(pack({ events: [data] }), referencing.pack({ events: [data] }))).toBe(0);
  const value: Record<string, unknown> = { total: 2 };
  value.again = value;
  expect(Buffer.compare(Buffer.from(encode({ t: 'ok', value })), referencing.pack({ t: 'ok', value }))).toBe(0);
  expect(unpack(pack([1, 0, [event]]))).toEqual([1, 0, [event]]);
  expect(decodeReply(encode({ t: 'moved' }))).toEqual({ t: 'moved' });
});

it('an object held twice reads back as two equal copies', () => {
  const shared = { n: 1 };
  const back = unpack(pack({ a: shared, b: shared })) as { a: unknown; b: unknown };
  expect(back.a).toEqual(shared);
  expect(back.b).toEqual(shared);
});
