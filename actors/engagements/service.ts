/** The engagements area's long-lived service: the standing model (standing.ts), per platform. */
import { type Platform, serviceKey } from '../../kernel/index.ts';
import { StandingModel } from './standing.ts';

export const ENGAGEMENTS = serviceKey<StandingModel>('engagements.standing');

export const standingModel = (platform: Platform): StandingModel => platform.services.require(ENGAGEMENTS);
