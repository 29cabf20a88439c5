/**
 * Public event types of this part of allocation (spec 6: allocation has 10 types, the complete list
 * is not shown): these ten, every name ours (docs/gaps.md#allocation). Every other transition of a
 * work order, offer or assignment is recorded and has its audit entry; the ten are the ones a
 * subscriber acts on.
 * The rows are data, events.json beside this file, read by the kernel's publicEventTable.
 */
import { publicEventTable } from '../../kernel/index.ts';

export const events = publicEventTable(new URL('./events.json', import.meta.url));
