/**
 * The platform's TypeScript client: `createClient({ baseUrl, apiKey })` gives one namespace per
 * area (`client.payroll.runs.create(...)`), typed from the platform's OpenAPI document, and
 * `webhooks.verify` for deliveries (spec 6.2).
 */
export { createClient, type Client } from './client.js';
export { ConnectionError, PlatformError, type ValidationReport } from './errors.js';
export type { Operations, Resources } from './generated.js';
export type { ResponseInfo, TransportOptions } from './transport.js';
export type { ClientOptions, ListResult, Page, RequestOptions, Undescribed, UndescribedRecord } from './types.js';
export { verify, webhooks, WebhookVerificationError, type VerifyOptions, type WebhookRefusal } from './webhooks.js';
