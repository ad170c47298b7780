import { accounts } from '#packages/families/accounts/index.js';
import { templates } from '#packages/families/templates/index.js';
import { webhooks } from '#packages/families/webhooks/index.js';
import { AutomationRuns, type RunnerDeps } from './runner.js';
import { AutomationTriggers } from './triggers.js';
import { StepActions } from './actions.js';
import { Automations } from './commands.js';
import { LIMITS } from './definition.js';
import { automationSchedule } from './processes/automation-schedule.js';
import { automationStep } from './processes/automation-step.js';
import { enqueue } from '#packages/scheduler/scheduler.js';
// Part 2 debt: reads the templates' table directly until the templates family offers the lookup.
import { findTemplate } from '#packages/families/templates/read/index.js';
import { billing } from '#packages/families/billing/index.js';
import { defineFamily } from '#packages/families/family.js';
import { automationsReadSide } from './read/index.js';
import { payouts } from '#packages/families/payouts/index.js';
import { automationErrors } from './errors.js';

declare module '../../processes/process.js' {
  interface ProcessServices {
    automationTriggers: AutomationTriggers;
    automationRuns: AutomationRuns;
  }
}

/** Automations and their runner (docs/automations.md). */
export const automations = defineFamily({
  name: 'automations',
  readSide: automationsReadSide,
  needs: [payouts, billing, accounts, templates, webhooks],
  errors: automationErrors,
  processes: [automationStep, automationSchedule],
  build: ({ config, store, clock, log, knex, secretBox, outbox: messenger, notifier, rateLimiter, deadlines, publicEvents }, { payouts, billing }) => {
    const automations = new Automations({
      store,
      clock,
      box: secretBox,
      allowedPrivateRanges: config.webhookAllowedPrivateRanges,
      templateKind: async (owner, id) => (await findTemplate(knex, owner, id))?.kind,
    });
    const runnerDeps: RunnerDeps = {
      knex,
      clock,
      log,
      box: secretBox,
      automations,
      messenger,
      notifier,
      payouts,
      billing,
      publicEvents,
      enqueueStep: (db, job, runAt) => enqueue(db, automationStep.job, job, runAt),
      enqueueTick: (db, job, runAt) => enqueue(db, automationSchedule.job, job, runAt),
      allowedPrivateRanges: config.webhookAllowedPrivateRanges,
      httpTimeoutMs: deadlines.automationHttpTimeoutMs ?? LIMITS.httpTimeoutMs,
      smtpConfigured: config.smtpUrl !== null,
      countSend: async (owner, to) => {
        const { automationSendLimit: perMerchant, automationRecipientLimit: perRecipient } = config;
        await rateLimiter.take([
          ...(perMerchant ? [{ key: `automation-send:${owner.merchantId}:${owner.environment}`, rule: perMerchant }] : []),
          ...(perRecipient ? [{ key: `automation-send:${owner.merchantId}:${owner.environment}:${to}`, rule: perRecipient }] : []),
        ]);
      },
    };
    return {
      automations,
      automationTriggers: new AutomationTriggers(runnerDeps),
      automationRuns: new AutomationRuns(runnerDeps, new StepActions(runnerDeps)),
    };
  },
  consumers: ({ automationTriggers }) => [automationTriggers.consumer()],
});
