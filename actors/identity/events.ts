/**
 * Public event types of the identity module (spec 6). The spec names verification.resolved and
 * verification.unresolved and counts 8 identity types without listing them; the module records an
 * event for every transition (spec 3: every transition is recorded), so the list is longer and every
 * name but the two is ours (docs/gaps.md#identity). `data` is the record after the event; none
 * carries an identifier in clear (spec rule 6).
 * The rows are data, events.json beside this file, read by the kernel's publicEventTable.
 */
import { publicEventTable } from '../../kernel/index.ts';

export const events = publicEventTable(new URL('./events.json', import.meta.url));
