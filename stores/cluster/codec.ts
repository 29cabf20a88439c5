/**
 * One msgpackr codec for every value the cluster stores keep (events, kv values, reminders,
 * readings): plain data, bigint and Set round-trip, as in the runtime's snapshot codec, so a value
 * reads back the same from Redis or JetStream as from memory.
 */
import { Packr } from 'msgpackr';

const packr = new Packr({ structuredClone: true, useRecords: false, useBigIntExtension: true } as ConstructorParameters<typeof Packr>[0]);

export const pack = (value: unknown): Buffer => packr.pack(value);
export const unpack = (bytes: Uint8Array): unknown => packr.unpack(bytes);
