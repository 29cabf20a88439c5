/**
 * One msgpackr codec for every value the cluster stores keep (events, kv values, reminders,
 * readings): plain data, bigint and Set round-trip, as in the runtime's snapshot codec, so a value
 * reads back the same from Redis or JetStream as from memory.
 *
 * Values are written by a packer without msgpackr's structured clone: that option records every
 * object it writes in a map so that a second reference to it, or a cycle, can be written as a
 * reference, which is most of a small value's packing time, and the values kept here are trees.
 * For a tree both packers write the same bytes (the same types are on: Set, bigint and the other
 * structured-clone types), so readers of either form are unchanged. A value the tree packer cannot
 * write (a cycle overflows its stack) is written by the structured-clone packer; a value holding
 * one object twice reads back with two equal copies of it.
 */
import { Packr } from 'msgpackr';

type PackrOptions = ConstructorParameters<typeof Packr>[0];

const packr = new Packr({ structuredClone: true, useRecords: false, useBigIntExtension: true } as PackrOptions);
const treePackr = new Packr({ moreTypes: true, useRecords: false, useBigIntExtension: true } as PackrOptions);

/** `value` packed without reference tracking, or with it when the value has a cycle. */
export function packTree(tree: Packr, referencing: Packr, value: unknown): Buffer {
  try {
    return tree.pack(value);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return referencing.pack(value);
  }
}

export const pack = (value: unknown): Buffer => packTree(treePackr, packr, value);
export const unpack = (bytes: Uint8Array): unknown => packr.unpack(bytes);
