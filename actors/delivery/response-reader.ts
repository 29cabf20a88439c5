/**
 * Reads one HTTP/1.1 response off a webhook connection (RFC 9112), byte by byte as it arrives: the
 * status line and headers, then the body's framing (section 6.3: no body for 1xx, 204 and 304;
 * else chunked, else Content-Length, else until the connection closes) so the connection can be
 * kept for the next attempt once the body is read. The body itself is counted and dropped: spec 6.1
 * judges an attempt by its status alone (sender.ts).
 *
 * Interim 1xx responses are skipped (a receiver may send 103 Early Hints before its answer). What
 * cannot be read as a response (a head past MAX_HEAD_BYTES, a bad status line, a Content-Length
 * that is not one number, a bad chunk) throws ResponseError; the connection is not reused.
 */

/** A response head longer than this is refused (node:http's default limit is the same). */
export const MAX_HEAD_BYTES = 16 * 1024;
/** A body longer than this is not read to its end: the connection is closed instead of drained. */
export const MAX_DRAINED_BODY_BYTES = 1024 * 1024;

export class ResponseError extends Error {
  readonly code = 'ERR_WEBHOOK_RESPONSE';
}

export interface ResponseHead {
  status: number;
  /** Whether the connection may carry another request once this response's body is read. */
  keepAlive: boolean;
}

/**
 * The status of a status line `HTTP/1.x NNN[ reason]` ending at `eol` (RFC 9112 4), or 0 when the
 * line is not one. Read by character: it is read once per attempt.
 */
function statusOf(text: string, eol: number): number {
  if (eol < 12 || !text.startsWith('HTTP/1.') || (text.charCodeAt(7) !== 48 && text.charCodeAt(7) !== 49)) return 0;
  if (text.charCodeAt(8) !== 32 || (eol > 12 && text.charCodeAt(12) !== 32)) return 0;
  let status = 0;
  for (let i = 9; i < 12; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return 0;
    status = status * 10 + d;
  }
  return status >= 100 ? status : 0;
}

/**
 * A Content-Length value: one number, or a list of one number repeated (RFC 9110 8.6); -1 for
 * anything else.
 */
function contentLength(value: string): number {
  let n = -1;
  for (const part of value.indexOf(',') < 0 ? [value] : value.split(',')) {
    const v = part.trim();
    if (v.length === 0 || v.length > 15) return -1;
    let x = 0;
    for (let i = 0; i < v.length; i++) {
      const d = v.charCodeAt(i) - 48;
      if (d < 0 || d > 9) return -1;
      x = x * 10 + d;
    }
    if (n !== -1 && n !== x) return -1;
    n = x;
  }
  return n;
}
/** RFC 9112 7.1: the size in hex, then optional extensions. */
const CHUNK_SIZE = /^([0-9a-fA-F]{1,12})[ \t]*(?:;.*)?$/;

type Phase = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'until-close' | 'done';

export class ResponseReader {
  /** The final (non-1xx) response's head, once read. */
  head: ResponseHead | null = null;
  private phase: Phase = 'head';
  /** The start of a line (head, chunk size, trailer) whose end has not arrived yet. */
  private partial: Buffer | null = null;
  /** Body bytes still to come in the current Content-Length body or chunk. */
  private left = 0;
  private bodyBytes = 0;
  /** Bytes that arrived after the response ended: the connection is not reused. */
  extra = false;

  /** Whether the whole response, body included, has been read. */
  get done(): boolean {
    return this.phase === 'done';
  }

  /** Whether the body is past MAX_DRAINED_BODY_BYTES: the caller stops reading and closes. */
  get overlong(): boolean {
    return this.bodyBytes > MAX_DRAINED_BODY_BYTES;
  }

  /** Reads `chunk`; throws ResponseError on bytes that are no HTTP/1.1 response. */
  push(chunk: Buffer): void {
    if (this.partial) {
      // A line split over packets: rare (heads are small), so it is simply joined.
      chunk = Buffer.concat([this.partial, chunk]);
      this.partial = null;
    }
    let at = 0;
    while (at < chunk.length) {
      switch (this.phase) {
        case 'head':
        case 'chunk-size':
        case 'chunk-end':
        case 'trailers': {
          const head = this.phase === 'head';
          const i = chunk.indexOf(head ? '\r\n\r\n' : '\r\n', at);
          if (i < 0) {
            if (chunk.length - at > (head || this.phase === 'trailers' ? MAX_HEAD_BYTES : 1024)) throw new ResponseError(head ? `response head longer than ${MAX_HEAD_BYTES} bytes` : 'a chunk line too long');
            this.partial = chunk.subarray(at);
            return;
          }
          const end = i + (head ? 4 : 2);
          if (head && end - at > MAX_HEAD_BYTES) throw new ResponseError(`response head longer than ${MAX_HEAD_BYTES} bytes`);
          this.line(chunk, at, i);
          at = end;
          break;
        }
        case 'length':
        case 'chunk-data': {
          const n = Math.min(this.left, chunk.length - at);
          this.left -= n;
          this.bodyBytes += n;
          at += n;
          if (this.left === 0) this.phase = this.phase === 'length' ? 'done' : 'chunk-end';
          break;
        }
        case 'until-close':
          this.bodyBytes += chunk.length - at;
          return;
        case 'done':
          this.extra = true;
          return;
      }
    }
  }

  /** The connection ended: completes a body read until close; throws if the response was cut short. */
  end(): void {
    if (this.phase === 'until-close') this.phase = 'done';
    if (this.phase !== 'done') throw new ResponseError(this.head ? 'the connection ended inside the response body' : 'the connection ended before a response');
  }

  /** A whole line (or, in the head phase, the whole head) from `at` up to its CRLF at `crlf`. */
  private line(chunk: Buffer, at: number, crlf: number): void {
    switch (this.phase) {
      case 'head':
        return this.readHead(chunk.toString('latin1', at, crlf));
      case 'chunk-end':
        if (crlf !== at) throw new ResponseError('chunk data longer than its size');
        this.phase = 'chunk-size';
        return;
      case 'chunk-size':
        return this.readChunkSize(chunk.toString('latin1', at, crlf));
      case 'trailers':
        if (crlf === at) this.phase = 'done';
        return;
    }
  }

  private readHead(text: string): void {
    let eol = text.indexOf('\r\n');
    if (eol < 0) eol = text.length;
    const status = statusOf(text, eol);
    if (status === 0) throw new ResponseError(`not an HTTP/1.1 status line: ${JSON.stringify(text.slice(0, Math.min(eol, 64)))}`);
    const http10 = text.charCodeAt(7) === 48; // HTTP/1.0
    let length: number | null = null;
    let chunked = false;
    let otherCoding = false;
    let close = http10;
    for (let at = eol + 2; at < text.length; ) {
      let end = text.indexOf('\r\n', at);
      if (end < 0) end = text.length;
      const colon = text.indexOf(':', at);
      if (colon <= at || colon > end) throw new ResponseError('a response header line without a name');
      // Only three headers matter here; the others are skipped on their name's length and first letter.
      const n = colon - at;
      const first = text.charCodeAt(at) | 0x20;
      if ((n === 14 && first === 99) || (n === 17 && first === 116) || (n === 10 && first === 99)) {
        const name = text.slice(at, colon).toLowerCase();
        const value = text.slice(colon + 1, end).trim();
        if (name === 'content-length') {
          const v = contentLength(value);
          if (v < 0 || (length !== null && length !== v)) throw new ResponseError('a Content-Length that is not one number');
          length = v;
        } else if (name === 'transfer-encoding') {
          const codings = value.toLowerCase().split(',').map((v) => v.trim()).filter(Boolean);
          chunked = codings[codings.length - 1] === 'chunked';
          otherCoding = !chunked;
        } else if (name === 'connection') {
          const tokens = value.toLowerCase().split(',').map((v) => v.trim());
          if (tokens.includes('close')) close = true;
          else if (tokens.includes('keep-alive') && http10) close = false;
        }
      }
      at = end + 2;
    }
    if (status < 200) {
      // RFC 9110 15.2: an interim response; the final one follows (101 would switch protocols,
      // which was never asked for: nothing more can be read as HTTP).
      if (status === 101) throw new ResponseError('the receiver switched protocols');
      return;
    }
    // RFC 9112 6.3: no body after 204 or 304; Transfer-Encoding over Content-Length; a body with
    // neither (or a coding other than chunked last) runs to the close.
    if (status === 204 || status === 304) this.phase = 'done';
    else if (chunked) this.phase = 'chunk-size';
    else if (length !== null && !otherCoding) {
      this.left = length;
      this.phase = length === 0 ? 'done' : 'length';
      if (length > MAX_DRAINED_BODY_BYTES) this.bodyBytes = length; // overlong at once: not drained
    } else {
      this.phase = 'until-close';
      close = true;
    }
    this.head = { status, keepAlive: !close };
  }

  private readChunkSize(text: string): void {
    const m = CHUNK_SIZE.exec(text);
    if (!m) throw new ResponseError(`a bad chunk size line: ${JSON.stringify(text.slice(0, 32))}`);
    const size = parseInt(m[1], 16);
    if (size === 0) this.phase = 'trailers';
    else {
      this.left = size;
      this.phase = 'chunk-data';
    }
  }
}
