/**
 * The header-count limit of the transport (docs/gaps.md#gateway "Transport notes"): a request of
 * MAX_REQUEST_HEADER_LINES header lines, Host included, is served; one line more is answered with
 * nothing and its connection closed at uWS's idle timeout, while the server serves everyone else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REQUEST_HEADER_LINES } from '../../gateway/headers.ts';
import { startHarness, type Harness } from '../../support/http.ts';
import { get, RawConnection } from './raw-http.ts';

// the transport reads and refuses these before any store is touched: one project runs them (vitest.config.ts TEST_STORES)
const transportOnly = process.env.TEST_STORES === 'memory';

let h: Harness;
beforeAll(async () => {
  if (transportOnly) h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

/** A GET of /healthz with `lines` header lines: Host and lines - 1 others. */
const withLines = (lines: number) => `GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n${Array.from({ length: lines - 1 }, (_, i) => `x-extra-${i}: v\r\n`).join('')}\r\n`;

describe.runIf(transportOnly)(`request header lines (at most ${MAX_REQUEST_HEADER_LINES}, docs/gaps.md#gateway)`, () => {
  it(`${MAX_REQUEST_HEADER_LINES} header lines are served`, async () => {
    const c = await RawConnection.open(h.port);
    c.send(withLines(MAX_REQUEST_HEADER_LINES));
    expect((await c.next())?.status).toBe(200);
    c.destroy();
  });

  it(`${MAX_REQUEST_HEADER_LINES + 1} header lines get no byte back and the connection is closed at the idle timeout; others are served meanwhile`, async () => {
    const c = await RawConnection.open(h.port);
    c.send(withLines(MAX_REQUEST_HEADER_LINES + 1));
    const ok = await RawConnection.open(h.port);
    ok.send(get('/healthz'));
    expect((await ok.next())?.status).toBe(200);
    ok.destroy();
    expect(await c.ended).toBe('fin');
    expect(c.received).toBe('');
  }, 30_000);
});
