/**
 * The credentials module's node-local process (docs/architecture.md "Adding an area": service.ts):
 * the active policy pack and frameworks, the issuer and document-analyser providers, and the
 * eligibility model it keeps in memory (eligibility.ts). Provided under CREDENTIALS by the face's
 * start; credentialsService is its accessor. The operations the routes call are each actor's
 * plural file (verifications.ts, claims.ts, ...).
 */
import { type Platform, serviceKey } from '../../kernel/index.ts';
import { EligibilityModel } from './eligibility.ts';
import type { ActivePolicy } from './policy.ts';
import type { DocumentAnalyser } from './providers/document-analyser.ts';
import type { IssuerProvider } from './providers/issuers.ts';

export const CREDENTIALS = serviceKey<CredentialsService>('credentials');

export class CredentialsService {
  readonly eligibility: EligibilityModel;

  constructor(
    platform: Platform,
    readonly policy: ActivePolicy,
    readonly issuers: IssuerProvider,
    readonly analyser: DocumentAnalyser,
  ) {
    this.eligibility = new EligibilityModel(platform, policy);
  }

  start(): void {
    this.eligibility.start();
  }

  stop(): Promise<void> {
    return this.eligibility.stop();
  }
}

export const credentialsService = (platform: Platform): CredentialsService => platform.services.require(CREDENTIALS);
