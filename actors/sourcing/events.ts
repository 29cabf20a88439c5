/**
 * Public event types of the sourcing module (spec 6: source `flow`; the complete list is not
 * shown, so every name here is ours, in the spec's module.resource.past_tense_verb style;
 * docs/gaps.md#sourcing). Each is produced when a sourcing actor commits the journal event `on`.
 * The rows are data, events.json beside this file, read by the kernel's publicEventTable.
 */
import { publicEventTable } from '../../kernel/index.ts';

export const events = publicEventTable(new URL('./events.json', import.meta.url));
