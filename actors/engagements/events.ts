/**
 * Public event types of the engagements module (spec 6: engagements has 9 types; the complete list
 * is not shown). The spec names engagement.terminated and instrument.expired; the other seven are
 * ours, rail.<resource>.<past_tense> (docs/gaps.md#engagements): the moves of standing other
 * modules react to, and the instrument's seal and variation. Each carries the record (Engagement or
 * Instrument) as data. Every other transition is still recorded and listed in audit entries.
 * The rows are data, events.json beside this file, read by the kernel's publicEventTable.
 */
import { publicEventTable } from '../../kernel/index.ts';

export const events = publicEventTable(new URL('./events.json', import.meta.url));
