/**
 * Public event types of the payroll run (spec 6: source `run`). The spec names run.approved and
 * payroll.run.completed, used exactly; the rest are ours in its style (docs/gaps.md#payroll). Each
 * is produced when the run commits the journal event `on`, with the run as it stood after it.
 * The rows are data, events.json beside this file, read by the kernel's publicEventTable.
 */
import { publicEventTable } from '../../kernel/index.ts';

export const events = publicEventTable(new URL('./events.json', import.meta.url));
