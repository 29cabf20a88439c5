/**
 * Public event types of the payouts module (spec 6: source `route`). The spec names none of them
 * (docs/gaps.md#payouts); each is `route.<resource>.<past_tense>`, and `data` is the record after
 * the event. payroll.run.completed, the run's own event, follows an instruction's settlement.
 * The rows are data, events.json beside this file, read by the kernel's publicEventTable.
 */
import { publicEventTable } from '../../kernel/index.ts';

export const events = publicEventTable(new URL('./events.json', import.meta.url));
