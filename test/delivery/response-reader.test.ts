/**
 * Reading a receiver's answer to a webhook POST (spec 6.1 judges it by its status; RFC 9112 6.3
 * frames its body so the connection can carry the next attempt). Every response here is also fed
 * one byte at a time: a head or a chunk line split over packets must read the same.
 */
import { describe, expect, it } from 'vitest';
import { MAX_DRAINED_BODY_BYTES, MAX_HEAD_BYTES, ResponseError, ResponseReader } from '../../actors/delivery/response-reader.ts';

const whole = (text: string | Buffer): ResponseReader => {
  const r = new ResponseReader();
  r.push(Buffer.isBuffer(text) ? text : Buffer.from(text, 'latin1'));
  return r;
};
const byteByByte = (text: string): ResponseReader => {
  const r = new ResponseReader();
  const b = Buffer.from(text, 'latin1');
  for (let i = 0; i < b.length; i++) r.push(b.subarray(i, i + 1));
  return r;
};
const both = (text: string): ResponseReader[] => [whole(text), byteByByte(text)];

describe('response framing (RFC 9112 6.3)', () => {
  it('a Content-Length body is read to its length, and the connection may be kept', () => {
    for (const r of both('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok')) {
      expect(r.head).toEqual({ status: 200, keepAlive: true });
      expect(r.done).toBe(true);
      expect(r.extra).toBe(false);
    }
  });

  it('the status is known before the body has arrived', () => {
    const r = whole('HTTP/1.1 202 Accepted\r\nContent-Length: 10\r\n\r\nabc');
    expect(r.head).toEqual({ status: 202, keepAlive: true });
    expect(r.done).toBe(false);
    r.push(Buffer.from('defghij'));
    expect(r.done).toBe(true);
  });

  it('a chunked body, with chunk extensions and trailers, is read to its last chunk', () => {
    const text = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n';
    for (const r of both(text)) {
      expect(r.head).toEqual({ status: 200, keepAlive: true });
      expect(r.done).toBe(true);
    }
    expect(byteByByte(text.slice(0, -2)).done).toBe(false);
  });

  it('Transfer-Encoding wins over Content-Length', () => {
    const r = whole('HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n');
    expect(r.done).toBe(true);
  });

  it('interim 1xx responses are skipped: the status is the final one', () => {
    for (const r of both('HTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\nHTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n')) {
      expect(r.head).toEqual({ status: 201, keepAlive: true });
      expect(r.done).toBe(true);
    }
  });

  it('204 and 304 have no body whatever their headers say', () => {
    expect(whole('HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n').done).toBe(true);
    expect(whole('HTTP/1.1 304 Not Modified\r\n\r\n').done).toBe(true);
  });

  it('a body with no length runs to the close, and the connection is not kept', () => {
    for (const r of both('HTTP/1.1 200 OK\r\n\r\nsome body')) {
      expect(r.head).toEqual({ status: 200, keepAlive: false });
      expect(r.done).toBe(false);
      r.end();
      expect(r.done).toBe(true);
    }
  });

  it('Connection: close, and HTTP/1.0 without keep-alive, end the connection after the response', () => {
    expect(whole('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n').head).toEqual({ status: 200, keepAlive: false });
    expect(whole('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n').head).toEqual({ status: 200, keepAlive: false });
    expect(whole('HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n').head).toEqual({ status: 200, keepAlive: true });
  });

  it('bytes after the response mark the connection unusable', () => {
    expect(whole('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n').extra).toBe(true);
  });

  it('a body longer than the drain limit is flagged at once, not read', () => {
    expect(whole(`HTTP/1.1 200 OK\r\nContent-Length: ${MAX_DRAINED_BODY_BYTES + 1}\r\n\r\n`).overlong).toBe(true);
    const chunked = whole('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
    chunked.push(Buffer.from(`${(MAX_DRAINED_BODY_BYTES + 1).toString(16)}\r\n`));
    chunked.push(Buffer.alloc(MAX_DRAINED_BODY_BYTES + 1));
    expect(chunked.overlong).toBe(true);
  });
});

describe('what is not an HTTP/1.1 response is refused (the connection is not reused)', () => {
  const refused = (text: string | Buffer) => expect(() => whole(text)).toThrow(ResponseError);

  it('a bad status line', () => {
    refused('HTTP/2 200 OK\r\n\r\n');
    refused('SSH-2.0-OpenSSH_9.6\r\n\r\n');
    refused('HTTP/1.1 20 OK\r\n\r\n');
  });

  it('conflicting or malformed Content-Length', () => {
    refused('HTTP/1.1 200 OK\r\nContent-Length: 2, 3\r\n\r\n');
    refused('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n');
    refused('HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n');
    expect(whole('HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok').done).toBe(true);
  });

  it('a header line without a name', () => {
    refused('HTTP/1.1 200 OK\r\nno colon here\r\n\r\n');
    refused('HTTP/1.1 200 OK\r\n: empty\r\n\r\n');
  });

  it('a bad chunk size, or chunk data longer than its size', () => {
    refused('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n');
    refused('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokay\r\n');
  });

  it(`a head longer than ${MAX_HEAD_BYTES} bytes, whole or in pieces`, () => {
    const long = `HTTP/1.1 200 OK\r\nX-Long: ${'a'.repeat(MAX_HEAD_BYTES)}\r\n\r\n`;
    refused(long);
    expect(() => byteByByte(long)).toThrow(ResponseError);
  });

  it('a protocol switch nobody asked for', () => {
    refused('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n');
  });

  it('a connection that ends before the response, or inside its body', () => {
    expect(() => new ResponseReader().end()).toThrow(/before a response/);
    const r = whole('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nok');
    expect(() => r.end()).toThrow(/inside the response body/);
  });
});
