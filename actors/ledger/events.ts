/**
 * Public event types of the ledger (spec 6: source `ledger`): a posting recorded because another
 * area caused it, a type the spec does not name (docs/gaps.md#ledger). The rows are data,
 * events.json beside this file, read by the kernel's publicEventTable.
 */
import { publicEventTable } from '../../kernel/index.ts';

export const events = publicEventTable(new URL('./events.json', import.meta.url));
