/**
 * WebSocket protocol violations and limits (RFC 6455 7.4.1; SocketDef `frames` and `limits`;
 * docs/gaps.md#gateway): a violation closes with a close frame, a code and a reason, never a bare
 * TCP drop where the transport lets us; refused frames are counted against a per-connection
 * budget, and frames beyond a rate are refused unread.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { areas } from '../../actors/index.ts';
import { DEFAULT_SOCKET_LIMITS, SOCKET_MAX_FRAME_BYTES } from '../../gateway/sockets.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { probeArea, STRICT_LIMITS } from './probe-area.ts';
import { openSocket, type RawSocket } from './raw-ws.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ areas: [...areas, probeArea] });
});
afterAll(async () => {
  await h.close();
});

const strict = () => openSocket(h.port, '/v1/probe/strict', { 'service-api-key': h.key });

async function errorOf(s: RawSocket) {
  const f = await s.next();
  return JSON.parse(f?.text ?? 'null')?.error;
}

async function echo(s: RawSocket, text: string) {
  s.send(text);
  return JSON.parse((await s.next())?.text ?? 'null')?.echo;
}

describe('protocol violations close with a code and a reason (RFC 6455 7.4.1)', () => {
  it('a binary frame on a socket that reads text closes with 1003', async () => {
    const s = await strict();
    s.send(new Uint8Array([1, 2, 3]));
    expect(await s.closed).toEqual({ code: 1003, reason: 'This socket reads text frames only.' });
  });

  it('a frame over the size limit closes with 1009 naming the limit', async () => {
    const s = await strict();
    s.send('x'.repeat(SOCKET_MAX_FRAME_BYTES + 1));
    expect(await s.closed).toEqual({ code: 1009, reason: `A frame is at most ${SOCKET_MAX_FRAME_BYTES} bytes.` });
  });

  it('measured (uWS 20.30): a frame far over the limit, invalid UTF-8 in a text frame or a reserved bit is dropped without a close frame', async () => {
    const far = await strict();
    far.send('x'.repeat(SOCKET_MAX_FRAME_BYTES * 4 + 1));
    const utf8 = await strict();
    utf8.sendFrame(1, new Uint8Array([0xff, 0xfe, 0x41]));
    const rsv = await strict();
    rsv.sendFrame(0x40 | 1, Buffer.from('hello'));
    expect(await Promise.all([far.closed, utf8.closed, rsv.closed])).toEqual([undefined, undefined, undefined]);
  });
});

describe('the bad-frame budget: after badFramesPerConnection refused frames, close with 1008', () => {
  it(`the ${STRICT_LIMITS.badFramesPerConnection}th refused frame gets its error frame, then close 1008 with a reason`, async () => {
    const s = await strict();
    for (let i = 1; i <= STRICT_LIMITS.badFramesPerConnection; i++) {
      s.send('fail');
      expect(await errorOf(s)).toMatchObject({ code: 'validation_failed', retryable: false });
    }
    expect(await s.closed).toEqual({ code: 1008, reason: `${STRICT_LIMITS.badFramesPerConnection} refused frames; at most ${STRICT_LIMITS.badFramesPerConnection} per connection.` });
  });

  it('a 5xx error frame is not the client fault and does not count', async () => {
    const s = await strict();
    for (let i = 0; i < STRICT_LIMITS.badFramesPerConnection + 1; i++) {
      s.send('down');
      expect(await errorOf(s)).toMatchObject({ code: 'unavailable', retryable: true });
    }
    expect(await echo(s, 'still here')).toBe('still here');
    s.destroy();
  });

  it(`a socket without limits gets the gateway defaults (${DEFAULT_SOCKET_LIMITS.badFramesPerConnection} refused frames)`, async () => {
    const s = await openSocket(h.port, '/v1/probe/stream', { 'service-api-key': h.key });
    for (let i = 0; i < DEFAULT_SOCKET_LIMITS.badFramesPerConnection; i++) {
      s.send('fail');
      expect(await errorOf(s)).toMatchObject({ code: 'conflict' });
    }
    expect(await s.closed).toMatchObject({ code: 1008 });
  });
});

describe('the frame rate: frames beyond framesPerSecond are refused unread, and count as bad', () => {
  it(`${STRICT_LIMITS.framesPerSecond} frames in one instant are read; the next is refused as overloaded (retryable); a second later frames are read again`, async () => {
    const s = await strict();
    for (let i = 0; i < STRICT_LIMITS.framesPerSecond; i++) expect(await echo(s, `f${i}`)).toBe(`f${i}`);
    s.send('one too many');
    expect(await errorOf(s)).toMatchObject({ code: 'overloaded', retryable: true, message: expect.stringContaining(`more than ${STRICT_LIMITS.framesPerSecond} frames a second`) });
    await h.clock.advance(1000);
    expect(await echo(s, 'later')).toBe('later');
    s.destroy();
  });

  it('a client that keeps sending beyond the rate is closed with 1008 once its budget is spent', async () => {
    const s = await strict();
    for (let i = 0; i < STRICT_LIMITS.framesPerSecond + STRICT_LIMITS.badFramesPerConnection; i++) s.send(`f${i}`);
    const codes: string[] = [];
    for (let f = await s.next(); f; f = await s.next()) codes.push(JSON.parse(f.text).error?.code ?? 'echo');
    expect(codes).toEqual([...Array(STRICT_LIMITS.framesPerSecond).fill('echo'), ...Array(STRICT_LIMITS.badFramesPerConnection).fill('overloaded')]);
    expect(await s.closed).toMatchObject({ code: 1008 });
  });
});
