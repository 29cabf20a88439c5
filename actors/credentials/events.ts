/**
 * Public event types of the credentials module (spec 6: source `proof`). The spec names claim.lapsed
 * and licence.expired, used exactly; the rest are ours, proof.<resource>.<past_tense>
 * (docs/gaps.md#credentials). Each event's data is the record as it stood after the event.
 * The rows are data, events.json beside this file, read by the kernel's publicEventTable.
 */
import { publicEventTable } from '../../kernel/index.ts';

export const events = publicEventTable(new URL('./events.json', import.meta.url));
