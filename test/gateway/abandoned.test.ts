/**
 * A client that goes away (spec 1.9, 8: a retry with the same Idempotency-Key is how a client that
 * lost its answer learns it). A request the transport has read whole is executed even when its
 * client has closed the connection before the request ran; nothing is written to the closed
 * connection, and the retry replays the one execution.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { untilTurn } from '../../support/until.ts';
import { areas } from '../../actors/index.ts';
import { executions, probeArea } from './probe-area.ts';
import { startHarness, type Harness } from '../../support/http.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ areas: [...areas, probeArea] });
});
afterAll(async () => {
  await h.close();
});

/** Writes one whole request and closes the connection at once, without reading an answer. */
function sendAndLeave(raw: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = connect(h.port, '127.0.0.1');
    s.on('error', reject);
    s.on('connect', () => s.end(raw, () => (s.destroy(), resolve())));
  });
}

describe('a request read whole runs once even if its client goes away; the retry replays it (spec 1.9, 8)', () => {
  it('POST with an Idempotency-Key, connection closed straight after sending', async () => {
    const body = JSON.stringify({ description: 'left early', price: { amount: 500, currency: 'NGN' } });
    const before = executions.count;
    await sendAndLeave(
      `POST /v1/probe/charges HTTP/1.1\r\nhost: x\r\nservice-api-key: ${h.key}\r\nidempotency-key: gone-1\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await untilTurn(() => executions.count > before); // the server took it up after the client left
    const retry = await h.request('POST', '/v1/probe/charges', { body: JSON.parse(body), idempotencyKey: 'gone-1' });
    expect(retry.status).toBe(200);
    expect(retry.headers['service-idempotent-replay']).toBe('true');
    expect(retry.body.description).toBe('left early');
    expect(executions.count).toBe(before + 1);
    // and the server goes on serving
    const next = await h.request('GET', '/v1/api_keys');
    expect(next.status).toBe(200);
  });
});
