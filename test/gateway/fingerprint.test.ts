/**
 * The idempotency fingerprint (spec 1.9, 8: the same key with another request is refused) is the
 * SHA-256 of the method, the path and the exact body bytes. It is laid out in a reused buffer when it
 * fits and in a fresh one when it does not; both must give the same digest.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../gateway/idempotency.ts';

const reference = (method: string, path: string, body: Buffer) =>
  createHash('sha256').update(`${method} ${path}\n`).update(body).digest('base64url');

describe('the idempotency fingerprint is SHA-256 of method, path and exact body bytes (spec 1.9, 8)', () => {
  it('is the same digest for bodies that fit the reused buffer, straddle its end, or exceed it', () => {
    for (const size of [0, 1, 20, 16 * 1024 - 40, 16 * 1024 - 20, 16 * 1024, 64 * 1024]) {
      const body = Buffer.alloc(size, 0x61 + (size % 26));
      expect(fingerprint('POST', '/v1/api_keys', body), `body of ${size} bytes`).toBe(reference('POST', '/v1/api_keys', body));
    }
  });

  it('tells apart requests that differ only in a body byte, the path or the method', () => {
    const a = Buffer.from('{"name":"a"}');
    const b = Buffer.from('{"name":"b"}');
    expect(fingerprint('POST', '/v1/api_keys', a)).not.toBe(fingerprint('POST', '/v1/api_keys', b));
    expect(fingerprint('POST', '/v1/api_keys', a)).not.toBe(fingerprint('POST', '/v1/api_keyz', a));
    expect(fingerprint('POST', '/v1/api_keys', a)).not.toBe(fingerprint('PUT', '/v1/api_keys', a));
  });

  it('reads a path with multi-byte characters as UTF-8, and an earlier long body leaves nothing behind', () => {
    const long = Buffer.alloc(10_000, 0x7a);
    fingerprint('POST', '/v1/x', long);
    const body = Buffer.from('{}');
    expect(fingerprint('POST', '/v1/naïra/€', body)).toBe(reference('POST', '/v1/naïra/€', body));
  });
});
