/**
 * Id prefixes of the sourcing module. The spec fixes the requisition's (spec 2.7); the others are
 * "not shown" and follow it under the module's `flow_` prefix (docs/gaps.md#sourcing).
 */
export const REQUISITION_PREFIX = 'flow_enterprise_requisition_';
export const BROADCAST_PREFIX = 'flow_broadcast_';
export const DELIVERY_PREFIX = 'flow_delivery_';
export const LEAD_PREFIX = 'flow_lead_';
export const SUBJECT_PREFIX = 'flow_subject_';
export const SPEND_CEILING_PREFIX = 'flow_spend_ceiling_';
export const IMPORT_PREFIX = 'flow_import_';
export const CHANNEL_PREFIX = 'flow_channel_';
export const TAXONOMY_PREFIX = 'flow_taxonomy_';
