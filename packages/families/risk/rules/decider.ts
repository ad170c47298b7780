import { Refusal } from '#packages/core/refusal.js';
import type { Decider, Fact } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';
import type { PlatformRiskRulesEvent, RiskAssessed, RiskAssessmentEvent, RiskSettingsEvent } from './events.js';
import type { BlocklistEntry, RiskRuleSet, RiskSettings } from './rules.js';

/** How many entries one blocklist holds: it is read whole with every attempt. */
export const BLOCKLIST_MAX = 1_000;

interface About {
  merchantId: string;
  environment: Environment;
  at: Date;
}

export type RiskSettingsCommand = (About & { type: 'set_rules'; overrides: Partial<RiskRuleSet> }) | (About & { type: 'add_blocked'; entry: BlocklistEntry }) | (About & { type: 'remove_blocked'; entryId: string });

export interface RiskSettingsState {
  settings: RiskSettings | null;
}

export const noRiskSettings = (merchantId: string, environment: Environment): RiskSettings => ({ merchantId, environment, overrides: {}, blocklist: [] });

/**
 * A merchant's rules and blocklist. A value already blocked is not added twice (the entry there
 * is answered); removing an entry that is not there is 404 (IKW-RES-001).
 */
export const riskSettingsDecider: Decider<RiskSettingsCommand, RiskSettingsState, Fact<RiskSettingsEvent>> = {
  initialState: { settings: null },
  evolve(state, event) {
    const settings = state.settings ?? noRiskSettings(event.data.merchantId, event.data.environment);
    switch (event.type) {
      case 'risk_rules.set':
        return { settings: { ...settings, overrides: event.data.overrides } };
      case 'risk_rules.blocklist_added':
        return { settings: { ...settings, blocklist: [...settings.blocklist, event.data.entry] } };
      case 'risk_rules.blocklist_removed':
        return { settings: { ...settings, blocklist: settings.blocklist.filter((e) => e.id !== event.data.entryId) } };
    }
  },
  decide(command, state) {
    const owned = { merchantId: command.merchantId, environment: command.environment, at: command.at.toISOString() };
    const blocklist = state.settings?.blocklist ?? [];
    switch (command.type) {
      case 'set_rules':
        return [{ type: 'risk_rules.set', data: { ...owned, overrides: command.overrides } }];
      case 'add_blocked': {
        if (blocklist.some((e) => e.kind === command.entry.kind && e.value === command.entry.value)) return [];
        if (blocklist.length >= BLOCKLIST_MAX) throw new Refusal('IKW-LIM-008', `A blocklist holds at most ${BLOCKLIST_MAX} entries`, 'value');
        return [{ type: 'risk_rules.blocklist_added', data: { ...owned, entry: command.entry } }];
      }
      case 'remove_blocked':
        if (!blocklist.some((e) => e.id === command.entryId)) throw new Refusal('IKW-RES-001', `No such blocklist entry: '${command.entryId}'`, 'blocklistEntryId');
        return [{ type: 'risk_rules.blocklist_removed', data: { ...owned, entryId: command.entryId } }];
    }
  },
};

/** An assessment is recorded once: its id is new with each attempt. */
export const riskAssessmentDecider: Decider<{ type: 'record'; assessment: RiskAssessed }, { recorded: boolean }, Fact<RiskAssessmentEvent>> = {
  initialState: { recorded: false },
  evolve: () => ({ recorded: true }),
  decide: (command, state) => (state.recorded ? [] : [{ type: 'risk.assessed', data: command.assessment }]),
};

/** The platform's rules: what the risk role set over the starting ones; each change recorded. */
export const platformRiskRulesDecider: Decider<{ type: 'set_platform_rules'; overrides: Partial<RiskRuleSet>; at: Date }, { overrides: Partial<RiskRuleSet>; updated: string | null }, Fact<PlatformRiskRulesEvent>> = {
  initialState: { overrides: {}, updated: null },
  evolve: (_state, event) => ({ overrides: event.data.overrides, updated: event.data.at }),
  decide: (command) => [{ type: 'risk_platform_rules.set', data: { overrides: command.overrides, at: command.at.toISOString() } }],
};
