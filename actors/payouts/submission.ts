/**
 * Submitting a signed instruction (spec 1 rule 10, 2.11): intake.ts judges it, the signed envelope is
 * kept as evidence whether quarantined or not, and the verdict goes to the instruction actor. The
 * parsed documents of the last two instructions submitted on this node stay in memory, since
 * dispatch and planning read them again soon after; any other is parsed again from the kept envelope.
 */
import { ApiError, type Caller, isApiError, keyValue, type Platform } from '../../kernel/index.ts';
import type { SignedPayoutInstruction } from '../payroll/index.ts';
import { documentKey, type InstructionDocument, judge, parseDocument } from './intake.ts';
import { PayoutInstruction } from './instruction.ts';

export class InstructionDocuments {
  private readonly docs = new Map<string, InstructionDocument>();

  constructor(private readonly platform: Platform) {}

  remember(id: string, doc: InstructionDocument): void {
    this.docs.set(id, doc);
    if (this.docs.size > 2) this.docs.delete(this.docs.keys().next().value!);
  }

  async get(org: string, id: string): Promise<InstructionDocument> {
    const known = this.docs.get(id);
    if (known) return known;
    const env = await keyValue(this.platform).get<SignedPayoutInstruction>(documentKey(id));
    const doc = env && parseDocument(env.document);
    if (!doc) throw new ApiError('internal_error', `The signed document of instruction ${id} (${org}) is missing.`);
    return doc;
  }
}

export async function submit(platform: Platform, documents: InstructionDocuments, tallyInterval: number, caller: Caller, env: SignedPayoutInstruction, id: string, dedupeId: string | undefined): Promise<unknown> {
  const { system } = platform;
  try {
    return await system.get(PayoutInstruction, id, caller.org); // the same create again (Idempotency-Key)
  } catch (e) {
    if (!isApiError(e) || e.code !== 'not_found') throw e;
  }
  const { submission, document } = await judge(platform, caller.org, caller.livemode, env, id);
  await keyValue(platform).set(documentKey(id), env); // kept as evidence, quarantined or not
  if (document && submission.quarantine_reason === null) documents.remember(id, document);
  return system.ask(PayoutInstruction, id, 'submit', { ...submission, tally_interval_ms: tallyInterval }, { ...caller, dedupeId });
}
