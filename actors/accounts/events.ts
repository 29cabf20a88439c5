/**
 * Public event types of the accounts module (spec 6: source `iam`): an API key's creation and
 * revocation, which the spec does not name (docs/gaps.md#accounts); the secret is never in an
 * event. The rows are data, events.json beside this file, read by the kernel's publicEventTable.
 */
import { publicEventTable } from '../../kernel/index.ts';

export const events = publicEventTable(new URL('./events.json', import.meta.url));
