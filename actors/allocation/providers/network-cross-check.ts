/**
 * network_cross_check (spec 2.8 IntegrityFlag signal source): does the network the device is on
 * agree with the position it reports? A provider interface; the sandbox realm uses the simulated
 * provider below, whose answer is chosen by documented test values in the worker_id (as a payments
 * API's test card numbers do):
 *
 *   worker_id ends with         answer
 *   _test_network_mismatch      inconsistent: the signal fires
 *   _test_network_no_answer     no answer: no signal (silence is not evidence either way; the
 *                               reading is still judged on its own rules)
 *   anything else               consistent: no signal
 *
 * Answers of the simulated provider are stand-ins, so a signal from it is marked mocked.
 */
export interface CrossCheckInput {
  worker_id: string;
  latitude: number;
  longitude: number;
  recorded_at: number;
  connectivity: string;
}

export type CrossCheckAnswer =
  | { outcome: 'consistent'; mocked: boolean }
  | { outcome: 'inconsistent'; detail: string; mocked: boolean }
  | { outcome: 'no_answer'; mocked: boolean };

export interface NetworkCrossCheckProvider {
  readonly name: string;
  /** A provider that answers at once may return the answer itself (no promise on the hot path). */
  check(input: CrossCheckInput): CrossCheckAnswer | Promise<CrossCheckAnswer>;
}

export const NETWORK_TEST_VALUES = {
  mismatch: '_test_network_mismatch',
  noAnswer: '_test_network_no_answer',
} as const;

export class SandboxNetworkCrossCheck implements NetworkCrossCheckProvider {
  readonly name = 'sandbox_network_cross_check';

  check(input: CrossCheckInput): CrossCheckAnswer {
    if (input.worker_id.endsWith(NETWORK_TEST_VALUES.mismatch))
      return { outcome: 'inconsistent', detail: `The serving cell does not cover ${input.latitude.toFixed(4)}, ${input.longitude.toFixed(4)} (sandbox test value).`, mocked: true };
    if (input.worker_id.endsWith(NETWORK_TEST_VALUES.noAnswer)) return { outcome: 'no_answer', mocked: true };
    return { outcome: 'consistent', mocked: true };
  }
}
