/**
 * Job channels (spec 4.6 GET /v1/sourcing/channels; fields "not shown", docs/gaps.md#sourcing)
 * behind one interface, as every external party is (DESIGN "Areas"). The sandbox realm uses
 * simulated channels whose behaviour is documented, as a payments API documents its test cards:
 *
 *   channel                          behaviour        grounded in (reference 4.3)
 *   flow_channel_myjobmag            accepts          MyJobMag ATS inbound API [P]; external_id = requisition id + version
 *   flow_channel_jobberman           accepts          no public posting API [U]: an assisted channel
 *   flow_channel_whatsapp            accepts          Cloud API template messages to opted-in candidates [P]
 *   flow_channel_linkedin            refuses          Job Posting API is partner-only, not taking new partners [P]
 *   flow_channel_sandboxtimeout      times_out        never answers within the time-out: every attempt times out
 *   flow_channel_sandboxflaky        times_out_once   the first attempt of a delivery times out, a retry is accepted
 *
 * A refusal is final; a time-out is retried on the channel's schedule by a durable reminder
 * (channel-delivery.ts). Every outcome of a simulated channel is mocked.
 */

export type ChannelBehaviour = 'accepts' | 'refuses' | 'times_out' | 'times_out_once';

export interface Channel {
  id: string;
  name: string;
  kind: 'job_board' | 'messaging' | 'professional_network' | 'test';
  /** api: posted programmatically; assisted: posted by staff through the employer portal. */
  posting: 'api' | 'assisted';
  behaviour: ChannelBehaviour;
  /** Longest text the channel takes; the generated variant is cut to it. */
  max_length: number;
  /** Waits before each retry after a time-out, in seconds; its length is the retries allowed. */
  retry_schedule_seconds: number[];
  description: string;
}

export interface ChannelPost {
  channel_id: string;
  delivery_id: string;
  attempt: number;
  /** The channel's idempotency key: a repeated post is the same posting (MyJobMag external_id). */
  external_id: string;
  text: string;
}

export type ChannelOutcome =
  | { outcome: 'accepted'; external_ref: string; detail: string }
  | { outcome: 'refused'; detail: string }
  | { outcome: 'timed_out'; detail: string };

export interface ChannelProvider {
  channels(): readonly Channel[];
  post(p: ChannelPost): Promise<ChannelOutcome>;
}

const RETRIES = [30, 120, 600, 3600];

export const SANDBOX_CHANNELS: readonly Channel[] = [
  { id: 'flow_channel_myjobmag', name: 'MyJobMag', kind: 'job_board', posting: 'api', behaviour: 'accepts', max_length: 20_000, retry_schedule_seconds: RETRIES, description: 'Nigerian job board with an ATS inbound API; a repeated post with the same external_id returns the existing job.' },
  { id: 'flow_channel_jobberman', name: 'Jobberman', kind: 'job_board', posting: 'assisted', behaviour: 'accepts', max_length: 20_000, retry_schedule_seconds: RETRIES, description: 'Nigerian job board without a public posting API; posted by staff.' },
  { id: 'flow_channel_whatsapp', name: 'WhatsApp (opted-in candidates)', kind: 'messaging', posting: 'api', behaviour: 'accepts', max_length: 1_024, retry_schedule_seconds: RETRIES, description: 'Template messages to candidates who opted in (NDPA s.26 consent per recipient); never third-party groups.' },
  { id: 'flow_channel_linkedin', name: 'LinkedIn', kind: 'professional_network', posting: 'api', behaviour: 'refuses', max_length: 10_000, retry_schedule_seconds: RETRIES, description: 'Job Posting API is partner-only and not accepting new partnerships: every post is refused.' },
  { id: 'flow_channel_sandboxtimeout', name: 'Sandbox: times out', kind: 'test', posting: 'api', behaviour: 'times_out', max_length: 20_000, retry_schedule_seconds: RETRIES, description: 'Test channel: every attempt times out; the delivery fails after its last retry.' },
  { id: 'flow_channel_sandboxflaky', name: 'Sandbox: times out once', kind: 'test', posting: 'api', behaviour: 'times_out_once', max_length: 20_000, retry_schedule_seconds: RETRIES, description: 'Test channel: the first attempt of a delivery times out, the retry is accepted.' },
];

export class SandboxChannels implements ChannelProvider {
  private readonly byId = new Map(SANDBOX_CHANNELS.map((c) => [c.id, c]));

  channels(): readonly Channel[] {
    return SANDBOX_CHANNELS;
  }

  async post(p: ChannelPost): Promise<ChannelOutcome> {
    const c = this.byId.get(p.channel_id);
    if (!c) return { outcome: 'refused', detail: `Unknown channel ${p.channel_id}.` };
    switch (c.behaviour) {
      case 'accepts':
        return { outcome: 'accepted', external_ref: `${c.name.toLowerCase().split(/\W/)[0]}:${p.external_id}`, detail: `${c.name} accepted the posting.` };
      case 'refuses':
        return { outcome: 'refused', detail: `${c.name} refused the posting: ${c.description}` };
      case 'times_out':
        return { outcome: 'timed_out', detail: `${c.name} did not answer within the time-out.` };
      case 'times_out_once':
        return p.attempt === 1
          ? { outcome: 'timed_out', detail: `${c.name} did not answer within the time-out.` }
          : { outcome: 'accepted', external_ref: `sandbox:${p.external_id}`, detail: `${c.name} accepted the posting.` };
    }
  }
}
