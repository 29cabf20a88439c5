/**
 * The signed documents of submitted instructions (spec 1 rule 10, 2.11), as this node reads them: the
 * envelope is kept as evidence in the key-value store (instructions.ts submitInstruction). The
 * parsed documents of the last two instructions submitted on this node stay in memory, since
 * dispatch and planning read them again soon after; any other is parsed again from the kept envelope.
 */
import { ApiError, keyValue, type Platform } from '../../kernel/index.ts';
import type { SignedPayoutInstruction } from '../payroll/index.ts';
import { documentKey, type InstructionDocument, parseDocument } from './intake.ts';

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
