import type { Messages } from '../../../src/shell/i18n.js';

/** The rails' names and the environments, shared by the Rails and Reconciliation sections. */
export const RAIL_WORDS = {
  en: {
    'rail.pawapay': 'pawaPay',
    'rail.paystack': 'Paystack',
    'rail.hub2': 'Hub2',
    'rail.sandbox': 'Sandbox operator',
    'rail.unrecorded': 'Not recorded (a live rail that keeps no money of Sika’s)',
    'environment.live': 'Live',
    'environment.sandbox': 'Sandbox',
  },
  fr: {
    'rail.pawapay': 'pawaPay',
    'rail.paystack': 'Paystack',
    'rail.hub2': 'Hub2',
    'rail.sandbox': 'Opérateur sandbox',
    'rail.unrecorded': 'Non enregistré (un rail live qui ne garde pas d’argent de Sika)',
    'environment.live': 'Live',
    'environment.sandbox': 'Sandbox',
  },
} satisfies Messages<string>;

export const ENVIRONMENTS = ['live', 'sandbox'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

type RailWord = keyof typeof RAIL_WORDS.en;

/** A rail's name as people write it; a connector this console does not know by name keeps its own. */
export const railName = (t: (key: RailWord) => string, rail: string): string => (`rail.${rail}` in RAIL_WORDS.en ? t(`rail.${rail}` as RailWord) : rail);
