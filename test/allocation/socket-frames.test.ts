/**
 * A malformed heartbeat frame is the sender's fault (spec 7: 400-class): truncated, corrupted,
 * over-nested or unreadable frames answer 400 invalid_request with a short message, on the fast
 * msgpack path, the msgpackr path and the JSON path alike; nothing is logged as a fault.
 */
import { Packr } from 'msgpackr';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HEARTBEAT_SOCKET_PATH } from '../../actors/allocation/index.ts';
import { checkMsgpackFrame, MSGPACK_MAX_DEPTH, MSGPACK_MAX_VALUES } from '../../actors/allocation/supply/msgpack-frame.ts';
import { heartbeatSocket } from '../../actors/allocation/supply/socket.ts';
import { ApiError, AUTHENTICATOR, JSON_MAX_DEPTH, newId, type SocketContext } from '../../kernel/index.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { rng } from '../../support/rng.ts';
import { connect, makeAvailable, reading, workerId } from './support.ts';

const packr = new Packr({ useRecords: false });
let h: Harness;
let ctx: () => SocketContext;
let worker: string;

beforeAll(async () => {
  h = await startHarness();
  const principal = await h.platform.services.require(AUTHENTICATOR).authenticate('key', { 'service-api-key': h.key });
  ctx = () => ({ principal, org: principal.org, livemode: principal.livemode, requestId: newId('req_'), platform: h.platform });
  worker = workerId();
  await makeAvailable(h, worker);
  await h.clock.advance(1000);
});
afterAll(async () => {
  await h?.close();
});

/** What the socket answers a frame: a reply, or the error it throws (the gateway frames it). */
async function answer(data: Uint8Array, binary: boolean): Promise<{ ok: true } | { ok: false; error: unknown }> {
  try {
    await heartbeatSocket.onMessage({ data, binary }, ctx());
    return { ok: true };
  } catch (error) {
    return { ok: false, error };
  }
}

function expectClientError(got: { ok: true } | { ok: false; error: unknown }, what: string) {
  if (got.ok) return;
  expect(got.error, what).toBeInstanceOf(ApiError);
  const e = got.error as ApiError;
  expect(e.status, `${what}: ${e.code} ${e.message}`).toBeGreaterThanOrEqual(400);
  expect(e.status, `${what}: ${e.code} ${e.message}`).toBeLessThan(500);
}

const batch = (n = 3) => ({ worker_id: worker, readings: Array.from({ length: n }, (_, i) => reading(h.clock.now() - 1000 * (n - i))) });

describe('malformed heartbeat frames answer 400-class errors, never a fault (spec 7)', () => {
  it('every truncation and random byte flip of a valid msgpack batch answers a receipt or an ApiError with a 4xx code (seeded)', async () => {
    const rnd = rng(20260105);
    const valid = packr.pack(batch());
    let refused = 0;
    for (let cut = 0; cut < valid.length; cut++) {
      const got = await answer(valid.subarray(0, cut), true);
      expect(got.ok, `cut at ${cut}`).toBe(false);
      expectClientError(got, `cut at ${cut}`);
      refused++;
    }
    for (let n = 0; n < 1500; n++) {
      const bytes = Uint8Array.from(valid);
      const flips = 1 + Math.floor(rnd() * 3);
      for (let f = 0; f < flips; f++) bytes[Math.floor(rnd() * bytes.length)] = Math.floor(rnd() * 256);
      const cut = rnd() < 0.3 ? Math.floor(rnd() * bytes.length) : bytes.length;
      const got = await answer(bytes.subarray(0, cut), true);
      expectClientError(got, `flip case ${n}`);
      if (!got.ok) refused++;
    }
    expect(refused).toBeGreaterThan(valid.length + 500); // the corpus did reach the refusals
  });

  it('every truncation of a JSON batch answers 400 invalid_request with a short message', async () => {
    const text = Buffer.from(JSON.stringify(batch(2)));
    for (let cut = 0; cut < text.length; cut++) {
      const got = await answer(text.subarray(0, cut), false);
      expect(got.ok).toBe(false);
      const e = (got as { error: ApiError }).error;
      expect(e).toBeInstanceOf(ApiError);
      expect(e.code, e.message).toBe('invalid_request');
      expect(e.message.length).toBeLessThan(200);
    }
  });

  it('a truncated msgpack frame over the socket gets an invalid_request error frame and logs nothing', async () => {
    const frame = packr.pack(batch(1));
    const s = await connect(h.url + HEARTBEAT_SOCKET_PATH, { 'service-api-key': h.key });
    const logged = vi.spyOn(console, 'error');
    try {
      s.send(frame.subarray(0, frame.length - 3));
      const reply = JSON.parse((await s.next()).text);
      expect(reply.error).toMatchObject({ code: 'invalid_request', retryable: false });
      expect(reply.error.message.length).toBeLessThan(200);
      s.send(frame);
      expect((await s.next()).binary).toBe(true); // the connection still serves
      expect(logged).not.toHaveBeenCalled();
    } finally {
      logged.mockRestore();
      s.close();
    }
  });

  it('a deeply nested msgpack value is refused with 400 invalid_request naming the bound, not a stack overflow', async () => {
    const deep = new Uint8Array(200_001).fill(0x91);
    deep[deep.length - 1] = 0xc0;
    const inBatch = packr.pack({ worker_id: worker, readings: [JSON.parse('['.repeat(MSGPACK_MAX_DEPTH) + ']'.repeat(MSGPACK_MAX_DEPTH))] });
    for (const bytes of [deep, inBatch]) {
      const got = await answer(bytes, true);
      expect(got.ok).toBe(false);
      expect((got as { error: ApiError }).error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining(`deeper than ${MSGPACK_MAX_DEPTH} levels`) });
    }
    // nesting up to the bound is read, and judged by the batch check
    const atBound = packr.pack({ worker_id: worker, readings: [JSON.parse('['.repeat(MSGPACK_MAX_DEPTH - 2) + '1' + ']'.repeat(MSGPACK_MAX_DEPTH - 2))] });
    const judged = await answer(atBound, true);
    expect((judged as { error: ApiError }).error).toMatchObject({ code: 'validation_failed' });
  });

  it('a JSON text frame nested beyond the kernel\u2019s JSON bound is refused with 400 invalid_request before it is parsed', async () => {
    const text = `{"worker_id":"${worker}","readings":[${'['.repeat(JSON_MAX_DEPTH * 100)}${']'.repeat(JSON_MAX_DEPTH * 100)}]}`;
    const got = await answer(new TextEncoder().encode(text), false);
    expect(got.ok).toBe(false);
    expect((got as { error: ApiError }).error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining(`deeper than ${JSON_MAX_DEPTH} levels`) });
  });
});

describe('the msgpack frame check (slow path)', () => {
  const refusal = (bytes: Uint8Array) => {
    try {
      checkMsgpackFrame(bytes);
      return undefined;
    } catch (e) {
      expect(e).toBeInstanceOf(ApiError);
      return (e as ApiError).message;
    }
  };

  it('passes every value msgpackr writes for a batch, of any size up to the batch limit', () => {
    for (const n of [1, 7, 500, 501]) expect(refusal(packr.pack(batch(n)))).toBeUndefined();
    expect(refusal(packr.pack({ worker_id: 'w', readings: [{ recorded_at: new Date(0), position: null, battery_percent: -1.5, x: [1n << 40n, 'é', Buffer.from('ab')] }] }))).toBeUndefined();
  });

  it('refuses a declared length beyond the frame, trailing bytes, extension types, unused tokens and too many values', () => {
    expect(refusal(Uint8Array.from([0xdd, 0xff, 0xff, 0xff, 0xff, 0xc0]))).toMatch(/ends early/);
    expect(refusal(Uint8Array.from([0xdb, 0x00, 0x00, 0x10, 0x00, 0x61]))).toMatch(/ends early/);
    expect(refusal(Uint8Array.from([0xc0, 0xc0]))).toMatch(/goes on after/);
    expect(refusal(Uint8Array.from([0xd4, 0x01, 0x00]))).toMatch(/extension type 1 at byte 0/);
    expect(refusal(Uint8Array.from([0xc1]))).toMatch(/no valid value at byte 0/);
    expect(refusal(Uint8Array.from([]))).toMatch(/ends early/);
    const many = packr.pack(Array.from({ length: MSGPACK_MAX_VALUES }, () => 0));
    expect(refusal(many)).toMatch(new RegExp(`more than ${MSGPACK_MAX_VALUES} values`));
  });
});
