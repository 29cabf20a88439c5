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

const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: [^\r\n]*)?$/;
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
    const m = STATUS_LINE.exec(text.slice(0, eol));
    if (!m) throw new ResponseError(`not an HTTP/1.1 status line: ${JSON.stringify(text.slice(0, Math.min(eol, 64)))}`);
    const minor = m[1];
    const status = Number(m[2]);
    let length: number | null = null;
    let chunked = false;
    let otherCoding = false;
    let close = minor === '0';
    for (let at = eol + 2; at < text.length; ) {
      let end = text.indexOf('\r\n', at);
      if (end < 0) end = text.length;
      const colon = text.indexOf(':', at);
      if (colon <= at || colon > end) throw new ResponseError('a response header line without a name');
      // Only three headers matter here; the others are skipped on their name's length alone.
      const n = colon - at;
      if (n === 14 || n === 17 || n === 10) {
        const name = text.slice(at, colon).toLowerCase();
        const value = text.slice(colon + 1, end).trim();
        if (name === 'content-length') {
          // RFC 9110 8.6: a list of one repeated value is the value; anything else is no length.
          const values = new Set(value.split(',').map((v) => v.trim()));
          const [v] = values;
          if (values.size !== 1 || !/^\d{1,15}$/.test(v) || (length !== null && length !== Number(v))) throw new ResponseError('a Content-Length that is not one number');
          length = Number(v);
        } else if (name === 'transfer-encoding') {
          const codings = value.toLowerCase().split(',').map((v) => v.trim()).filter(Boolean);
          chunked = codings[codings.length - 1] === 'chunked';
          otherCoding = !chunked;
        } else if (name === 'connection') {
          const tokens = value.toLowerCase().split(',').map((v) => v.trim());
          if (tokens.includes('close')) close = true;
          else if (tokens.includes('keep-alive') && minor === '0') close = false;
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
