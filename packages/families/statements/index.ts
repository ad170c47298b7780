import { defineFamily } from '#packages/families/family.js';
import { statementsReadSide } from './read/index.js';
import { templates } from '#packages/families/templates/index.js';
import { Statements } from './commands.js';
import { StatementDownloadLinks } from './download-links.js';
import { statementErrors } from './errors.js';
import { statementCompute, statementsConsumer } from './processes/statement-compute.js';
import { statementPublicEvents } from './public-events.js';

declare module '../../processes/process.js' {
  interface ProcessServices {
    statements: Statements;
    statementDownloadLinks: StatementDownloadLinks;
  }
}

/** Statements a finance team can file (docs/statements.md): read from the ledger's entries, long ones computed in the background. */
export const statements = defineFamily({
  name: 'statements',
  readSide: statementsReadSide,
  needs: [templates],
  processes: [statementCompute],
  publicEvents: [statementPublicEvents],
  errors: statementErrors,
  build: ({ store, clock, knex, secretsKey }) => ({ statements: new Statements({ store, clock, knex }), statementDownloadLinks: new StatementDownloadLinks(clock, secretsKey) }),
  consumers: (_, { clock }) => [statementsConsumer(clock)],
});

export type { StatementInput } from './commands.js';
export { STATEMENT_CATEGORIES } from './statement.js';
export type { StatementObject } from './events.js';
export type { StatementLanguage } from './document.js';
export { DOWNLOAD_LINK_TTL_MS, type StatementDownload, type StatementDownloadLinks, type StatementFormat } from './download-links.js';
