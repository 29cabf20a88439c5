/**
 * The mailbox's own rules (DESIGN "The runtime": "one mailbox per actor (serial; two lanes, system before
 * user; bounded)"; STYLE "The mailbox is bounded and fair").
 */
import { describe, expect, it } from 'vitest';
import { type Envelope, Mailbox } from '../../runtime/mailbox.ts';

const env = (command: string): Envelope => ({
  command, payload: undefined, org: 'org_a', requestId: undefined, principal: undefined, dedupeId: undefined, noReply: false, refuseCreate: undefined,
  resolve: () => {}, reject: () => {}, ok: false, value: undefined, next: undefined,
});

const takeAll = (m: Mailbox) => {
  const out: string[] = [];
  for (let e = m.take(); e; e = m.take()) out.push(e.command);
  return out;
};

describe('mailbox lanes (DESIGN "The runtime", STYLE "The mailbox is bounded and fair")', () => {
  it('system messages are taken before user messages, each lane in arrival order', () => {
    const m = new Mailbox(10, 10);
    m.push(env('u1'), 'user');
    m.push(env('s1'), 'system');
    m.push(env('u2'), 'user');
    m.push(env('s2'), 'system');
    expect(m.size).toBe(4);
    expect(takeAll(m)).toEqual(['s1', 's2', 'u1', 'u2']);
    expect(m.size).toBe(0);
  });

  it('each lane refuses beyond its own capacity and accepts again once taken from', () => {
    const m = new Mailbox(2, 1);
    expect([m.push(env('u1'), 'user'), m.push(env('u2'), 'user'), m.push(env('u3'), 'user')]).toEqual([true, true, false]);
    expect([m.push(env('s1'), 'system'), m.push(env('s2'), 'system')]).toEqual([true, false]);
    expect(m.take()!.command).toBe('s1');
    expect(m.take()!.command).toBe('u1');
    expect(m.push(env('u4'), 'user')).toBe(true);
    expect(takeAll(m)).toEqual(['u2', 'u4']);
  });

  it('drain hands back everything still queued, system lane first, and leaves the mailbox empty and usable', () => {
    const m = new Mailbox(10, 10);
    for (const c of ['u1', 'u2']) m.push(env(c), 'user');
    m.push(env('s1'), 'system');
    expect(m.drain().map((e) => e.command)).toEqual(['s1', 'u1', 'u2']);
    expect(m.size).toBe(0);
    expect(m.take()).toBeUndefined();
    m.push(env('u3'), 'user');
    expect(takeAll(m)).toEqual(['u3']);
  });

  it('an envelope taken out carries no link to the rest of the queue', () => {
    const m = new Mailbox(10, 10);
    m.push(env('u1'), 'user');
    m.push(env('u2'), 'user');
    expect(m.take()!.next).toBeUndefined();
  });
});
