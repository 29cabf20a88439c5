/** The authorities' gateway of a platform (the sandbox unless another is provided), under a typed key. */
import { serviceKey } from '../../../kernel/index.ts';
import type { AuthorityGateway } from './providers/sandbox-authority.ts';

export const REMIT_AUTHORITY = serviceKey<AuthorityGateway>('remit_authority');
