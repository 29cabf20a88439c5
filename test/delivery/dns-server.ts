/**
 * A tiny DNS server over UDP on 127.0.0.1 (RFC 1035 4.1), for the webhook resolution tests: it
 * answers A queries from a zone given in the test, AAAA with no records (NODATA), other names
 * with NXDOMAIN, and holds the answers for names the test marks slow until it releases them.
 */
import dgram from 'node:dgram';

export interface ZoneEntry {
  a: string[];
  ttl?: number;
}

export interface Query {
  name: string;
  type: 'A' | 'AAAA' | number;
}

export interface DnsServer {
  /** `127.0.0.1:port`, for WEBHOOK_DNS_SERVERS. */
  address: string;
  queries: Query[];
  /** Answers for these names wait until release(name). */
  hold(name: string): void;
  release(name: string): void;
  /** Resolves once a query for `name` has arrived. */
  seen(name: string): Promise<void>;
  close(): Promise<void>;
}

function readName(msg: Buffer, at: number): { name: string; end: number } {
  const labels: string[] = [];
  let i = at;
  while (msg[i] !== 0) {
    labels.push(msg.subarray(i + 1, i + 1 + msg[i]).toString('latin1'));
    i += 1 + msg[i];
  }
  return { name: labels.join('.').toLowerCase(), end: i + 1 };
}

function answer(query: Buffer, zone: Record<string, ZoneEntry>): Buffer {
  const { name, end } = readName(query, 12);
  const qtype = query.readUInt16BE(end);
  const entry = zone[name];
  const records = entry && qtype === 1 ? entry.a : [];
  const head = Buffer.alloc(12);
  query.copy(head, 0, 0, 2); // the id
  head.writeUInt16BE(0x8180 | (entry ? 0 : 3), 2); // a response, recursion available; NXDOMAIN for unknown names
  head.writeUInt16BE(1, 4);
  head.writeUInt16BE(records.length, 6);
  const rrs = records.map((ip) => {
    const rr = Buffer.alloc(16);
    rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    rr.writeUInt16BE(1, 2);
    rr.writeUInt16BE(1, 4);
    rr.writeUInt32BE(entry!.ttl ?? 300, 6);
    rr.writeUInt16BE(4, 10);
    ip.split('.').forEach((octet, k) => rr.writeUInt8(Number(octet), 12 + k));
    return rr;
  });
  return Buffer.concat([head, query.subarray(12, end + 4), ...rrs]);
}

export async function startDnsServer(zone: Record<string, ZoneEntry>): Promise<DnsServer> {
  const socket = dgram.createSocket('udp4');
  const held = new Map<string, Array<() => void>>();
  const waiting = new Map<string, Array<() => void>>();
  const queries: Query[] = [];
  socket.on('message', (msg, from) => {
    const { name, end } = readName(msg, 12);
    const qtype = msg.readUInt16BE(end);
    queries.push({ name, type: qtype === 1 ? 'A' : qtype === 28 ? 'AAAA' : qtype });
    for (const w of waiting.get(name)?.splice(0) ?? []) w();
    const send = () => socket.send(answer(msg, zone), from.port, from.address);
    const hold = held.get(name);
    if (hold) hold.push(send);
    else send();
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    queries,
    hold: (name) => void held.set(name, held.get(name) ?? []),
    release(name) {
      const sends = held.get(name) ?? [];
      held.delete(name);
      for (const s of sends) s();
    },
    seen: (name) => (queries.some((q) => q.name === name) ? Promise.resolve() : new Promise((resolve) => waiting.set(name, [...(waiting.get(name) ?? []), resolve]))),
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
