// The folder's face: the simulator's connector (connector.ts); its news is its own timer's, so it has no inbound side.
export * from './connector.js';
