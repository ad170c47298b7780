// The folder's face: the connector (connector.ts) and the receiving of its provider's news (inbound.ts).
export * from './connector.js';
export * from './inbound.js';
