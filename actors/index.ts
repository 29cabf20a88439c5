/** Every area the platform mounts. Each area adds its own line. */
import type { Area } from '../kernel/index.ts';
import { area as accounts } from './accounts/index.ts';
import { area as allocation } from './allocation/index.ts';
import { area as credentials } from './credentials/index.ts';
import { area as delivery } from './delivery/index.ts';
import { area as engagements } from './engagements/index.ts';
import { area as identity } from './identity/index.ts';
import { area as ledger } from './ledger/index.ts';
import { area as payroll } from './payroll/index.ts';
import { area as payouts } from './payouts/index.ts';
import { area as remittance } from './remittance/index.ts';
import { area as sourcing } from './sourcing/index.ts';

export const areas: Area[] = [
  accounts,
  allocation,
  credentials,
  delivery,
  engagements,
  identity,
  ledger,
  payroll,
  payouts,
  remittance,
  sourcing,
];
