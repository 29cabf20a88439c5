/**
 * The verification batch operation the routes call (spec 4.3 POST /v1/identity/verification_batches;
 * shape a gap, docs/gaps.md#identity): each item is verified exactly as a single POST would be, under
 * an id derived from the batch's so a retried batch lands on the same records. A refusal (4xx) is
 * reported on its item; anything else fails the batch, which is recorded only when every item ran.
 */
import { type Caller, derivedId, isApiError, type Platform } from '../../kernel/index.ts';
import { VERIFICATION_PREFIX } from './ids.ts';
import { type BatchItemResult, VerificationBatch } from './verification-batch.ts';
import { verify, type VerificationRequest } from './verifications.ts';

export async function runBatch(platform: Platform, caller: Caller, batchId: string, body: { items: VerificationRequest[] }, dedupeId: string | undefined): Promise<unknown> {
  const items: BatchItemResult[] = [];
  for (const [i, item] of body.items.entries()) {
    const id = derivedId(VERIFICATION_PREFIX, [batchId, String(i)]);
    try {
      const v = await verify(platform, caller, id, item, `batch:${batchId}:${i}`);
      items.push({ index: i + 1, subject_ref: item.subject_ref, verification_id: id, outcome: v.outcome, error: null });
    } catch (e) {
      if (!isApiError(e) || e.status >= 500) throw e;
      items.push({ index: i + 1, subject_ref: item.subject_ref, verification_id: null, outcome: null, error: { code: e.code, message: e.message } });
    }
  }
  return platform.system.ask(VerificationBatch, batchId, 'record', { items, livemode: caller.livemode }, { ...caller, dedupeId });
}
