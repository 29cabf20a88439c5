/** Public face of the ledger area (spec 2.3, 4.2). */
import type { Area } from '../../kernel/index.ts';
import { Chart } from './chart.ts';
import { events } from './events.ts';
import { Posting } from './posting.ts';
import { routes } from './routes.ts';

export { STARTING_CHART, chartEntry, type ChartEntry, type LedgerAccountKind } from './starting-chart.ts';
export { Posting, postingIdFor, checkPosting, type PostingRequest } from './posting.ts';
export { balancesByCode, accountViews } from './reads.ts';

export const area: Area = {
  name: 'ledger',
  kinds: [Chart, Posting],
  routes,
  events,
};
