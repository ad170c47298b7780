// The folder's face: the rail whole (rail.ts: its name, settings and opening), its connector (connector.ts)
// and the receiving of its provider's news (inbound.ts).
export * from './connector.js';
export * from './inbound.js';
export * from './rail.js';
