/**
 * The platform's device library: a field worker's phone streaming heartbeats and receiving offers
 * over the heartbeat socket with the worker's device credential (spec 4.7).
 */
export { Device, DeviceStoppedError, type DeviceEvents, type DeviceOptions, type WebSocketFactory, type WebSocketLike } from './device.js';
export { NOTICE_TYPES, type Notice, type NoticeType } from './frames.js';
export { ReadingBuffer, type Reading } from './readings.js';
