/**
 * The remit part of the remittance area (spec 2.10, 3 "Remittance instruction set", 4.9, 6):
 * remittances, legs paid through the payouts module under remittance's own signing key, receipts
 * vaulted or quarantined, returns, the period's audit export and reconciliation. The area face
 * (actors/remittance/index.ts) folds `remitPart` into the area.
 */
import type { AnyActorDef } from '../../../runtime/index.ts';
import type { Platform, PublicEventDecl, RouteDef } from '../../../kernel/index.ts';
import { events } from './events.ts';
import { Leg } from './leg.ts';
import { Receipt } from './receipt.ts';
import { Remittance } from './remittance.ts';
import { Return } from './return.ts';
import { routes } from './routes.ts';
import { startRemit, stopRemit } from './service.ts';

export interface RemitPart {
  kinds: AnyActorDef[];
  routes: RouteDef[];
  events: PublicEventDecl[];
  start?(platform: Platform): Promise<void>;
  stop?(platform: Platform): Promise<void>;
}

export const remitPart: RemitPart = {
  kinds: [Remittance, Leg, Receipt, Return],
  routes,
  events,
  async start(platform) {
    startRemit(platform);
  },
  async stop(platform) {
    await stopRemit(platform);
  },
};

export { REMITTANCE_PREFIX, LEG_PREFIX, RECEIPT_PREFIX, RETURN_PREFIX } from './ids.ts';
export { RemitService, remitService } from './service.ts';
export type { AuthorityGateway } from './providers/sandbox-authority.ts';
