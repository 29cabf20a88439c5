/**
 * Reading a whole KV bucket once (the reminders' index rebuild, the buckets' sweep). The client's
 * `kv.history()` ends its iterator only when a delivered entry says nothing is pending after it:
 * when the entry it counted on is replaced or deleted meanwhile (a bucket keeps one entry per key,
 * so every write replaces one), that never comes, and a rebuild waited forever on a bucket being
 * written. A scan here ends at the first of: the entry at the stream's last sequence when it began,
 * an entry with nothing pending after it, or a pause in delivery after which the stream holds
 * nothing past what was delivered; and it fails as a StoreUnavailableError past its deadline.
 *
 * A scan sees every key whose entry it finds unchanged; a key written while it runs may be seen at
 * its old entry, its new one, or not at all, so a caller indexing what it reads relies on each
 * writer indexing its own write (jetstream-reminders.ts `put`), and a sweep leaves it to the next.
 */
import { DeliverPolicy, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { StoreUnavailableError } from '../types.ts';

export interface BucketEntry {
  key: string;
  /** The entry's stream sequence: the key's revision for a compare-and-set. */
  revision: number;
  operation: 'PUT' | 'DEL' | 'PURGE';
  value: Uint8Array;
  created: Date;
}

/** A pause in delivery this long makes the scan ask the stream whether anything is left. */
const IDLE_MS = 1_000;
/** A scan still running after this fails: the caller's next pass tries again. */
const SCAN_DEADLINE_MS = 60_000;

export async function scanBucket(
  js: JetStreamClient,
  jsm: JetStreamManager,
  bucket: string,
  visit: (e: BucketEntry) => void,
  deadlineMs = SCAN_DEADLINE_MS,
): Promise<void> {
  const stream = `KV_${bucket}`;
  const prefix = `$KV.${bucket}.`;
  const start = (await jsm.streams.info(stream)).state;
  if (start.messages === 0) return;
  const consumer = await js.consumers.get(stream, { filter_subjects: `${prefix}>`, deliver_policy: DeliverPolicy.All });
  const messages = await consumer.consume({ max_messages: 512 });
  let last = 0;
  let lastAt = performance.now();
  let timedOut = false;
  const deadline = setTimeout(() => {
    timedOut = true;
    void messages.stop();
  }, deadlineMs);
  // one look per pause, not a timer per entry: a pause asks the stream whether anything is left
  let asking = false;
  const idle = setInterval(() => {
    if (asking || performance.now() - lastAt < IDLE_MS) return;
    asking = true;
    void jsm.streams
      .info(stream)
      .then((s) => {
        if (s.state.messages === 0 || s.state.last_seq <= last) void messages.stop();
      })
      .catch(() => {})
      .finally(() => (asking = false));
  }, IDLE_MS);
  try {
    for await (const m of messages) {
      last = m.seq;
      lastAt = performance.now();
      visit(entryOf(m, prefix));
      if (m.seq >= start.last_seq || m.info.pending === 0) break;
    }
  } finally {
    clearInterval(idle);
    clearTimeout(deadline);
    void messages.stop();
    await consumer.delete().catch(() => {});
  }
  if (timedOut) throw new StoreUnavailableError(`JetStream bucket ${bucket}: reading it whole took over ${deadlineMs} ms`);
}

function entryOf(m: JsMsg, prefix: string): BucketEntry {
  const op = m.headers?.get('KV-Operation');
  return {
    key: m.subject.substring(prefix.length),
    revision: m.seq,
    operation: op === 'DEL' || op === 'PURGE' ? op : 'PUT',
    value: m.data,
    created: new Date(m.timestamp),
  };
}
