/**
 * Public event types of the remittance intake and obligations (spec 6: source `remit`). The spec
 * names none of them (docs/gaps.md, "Remittance: intake, authorities, obligations"); each is
 * `remit.<resource>.<past_tense>`, and `data` is the record after the event.
 * The rows are data, events.json beside this file, read by the kernel's publicEventTable.
 */
import { publicEventTable } from '../../../kernel/index.ts';

export const events = publicEventTable(new URL('./events.json', import.meta.url));
