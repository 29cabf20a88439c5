/**
 * The credentials module's readiness (spec 4.4 GET /v1/credentials/readiness; shape a gap,
 * docs/gaps.md#credentials): the active policy pack and frameworks (version, hash), the issuers and
 * the eligibility model this node keeps. Not one actor's operations: it reads the node-local
 * service alone.
 */
import type { Platform } from '../../kernel/index.ts';
import { credentialsService } from './service.ts';

export function readiness(platform: Platform): unknown {
  const { policy: p, eligibility } = credentialsService(platform);
  return {
    object: 'readiness',
    module: 'credentials',
    ready: true,
    policy: { version: p.pack.version, hash: p.policy.hash, legal_approval_reference: p.pack.legal_approval_reference },
    frameworks: { version: p.frameworks.pack.version, hash: p.frameworks.hash, occupations: p.frameworks.pack.frameworks.length },
    issuers: p.pack.issuers.map((i) => ({ id: i.id, method: i.method, mode: 'sandbox' })),
    licensed_occupations: Object.keys(p.pack.licensed_occupations),
    eligibility_model: eligibility.size,
  };
}
