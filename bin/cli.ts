import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, type Config } from '#packages/core/config.js';
import { commandConfiguration, serviceConfigurationFile, type RecordedConfiguration } from '#packages/core/service-configuration.js';
import { loadServiceConfig } from '../services/config.js';
import { hasCluster } from '#packages/core/embedded-postgres.js';
import { isRefused } from '#packages/core/refusal.js';
import { createLogger } from '#packages/core/logger.js';
import { isIsoCountry } from '#packages/catalog/index.js';
import { createApiKey, createMerchant, revokeApiKey } from '#packages/families/merchants/merchant/commands.js';
import { balanceFromLog } from '#packages/families/ledger/commands.js';
import { createMemberUser } from '#packages/families/accounts/organization/commands.js';
import { createAdminKey, revokeAdminKey } from '#packages/families/platform/platform-admin/commands.js';
import { ROLES, type Role } from '#packages/families/accounts/organization/events.js';
import { verifyLog } from '#packages/eventstore/audit-chain.js';
import { auditRecords } from '#packages/eventstore/audit-stream.js';
import { attemptsForReview } from '../services/rails.js';
import type { System } from '../services/system.js';
import { railHoldings } from '#packages/families/ledger/read/balances.js';
import { railStatement } from '#packages/families/ledger/read/index.js';
import { runReconciliation } from '../services/reconciliation.js';
import { apiBaseProblem, listen } from './listen.js';
import { OPERATOR_ROLES, type Environment, type OperatorRole } from '#packages/core/owner.js';

const USAGE = `usage:
  sika merchants create --name NAME [--email ADDRESS] [--json]
  sika keys create --merchant ACCOUNT_ID --environment sandbox|live [--scopes a,b] [--name NAME] [--json]
  sika keys revoke --merchant ACCOUNT_ID KEY_ID
  sika admin keys create [--name NAME] [--json]
                                    (the platform operator credential sk_admin_…, shown once: feature
                                    flags and other merchants' configuration, docs/configuration.md)
  sika admin keys revoke KEY_ID
  sika operator users create --email ADDRESS --role ROLE [--name NAME] [--json]
                                    (an operator of the platform's console, e.g. the first admin; ROLE:
                                    reviewer, risk, finance, admin. Prints their one-time invitation link
                                    (3 days; also e-mailed): they set a password and add an authenticator
                                    app there. docs/operator.md)
  sika users create --merchant ACCOUNT_ID --email ADDRESS --password PASSWORD [--name NAME] [--role ROLE] [--country CC]
                                    (ROLE: owner (default), admin, developer, finance, viewer; CC: the
                                    country of an organization made for the merchant, default SN)
  sika messages list [--email ADDRESS] [--json]
                                    (the newest 20 codes, links and invitations sent, to ADDRESS
                                    when given; text shown for those no transport delivered)
  sika projections rebuild [NAME...]
  sika projections verify [NAME...] [--json]
                                    (rebuilds into a shadow schema and compares with the live
                                    tables row by row; exits 1 listing the rows that differ)
  sika ledger balance --merchant ACCOUNT_ID --at TIME [--environment sandbox|live] [--json]
                                    (TIME: ISO 8601 or Unix seconds; the balances as the ledger's
                                    log stood then, every currency, both environments unless one is named)
  sika ledger balance --rail CONNECTOR [--environment live|sandbox] [--json]
                                    (what the ledger expects a rail that keeps Sika's money, e.g.
                                    pawapay, to hold now, per currency: its clearing account over
                                    every merchant; live unless named: docs/ledger.md)
  sika ledger statement --rail CONNECTOR --currency CUR --from DAY --to DAY [--environment live|sandbox] [--json]
                                    (the rail's statement over whole UTC days, DAY as YYYY-MM-DD, TO
                                    included: what the ledger expects it to hold at both ends and what
                                    each kind of entry moved in or out, every merchant together; live
                                    unless named: docs/reconciliation.md)
  sika reconcile RAIL [--environment live|sandbox] [--json]
                                    (RAIL: pawapay or hub2. Compares what the ledger expects the rail to hold
                                    with its wallet balances, and every attempt it carried with its
                                    record (status checks); exits 1 listing each difference. The
                                    run is kept in the reconciliation history with its report:
                                    docs/reconciliation.md)
  sika audit verify [--merchant ACCOUNT_ID] [--from POSITION] [--json]
                                    (recomputes the hash chains; exits 1 naming the first event that
                                    does not match: docs/audit.md)
  sika audit stream [STREAM_ID] [--merchant ACCOUNT_ID] [--from POSITION] [--since TIME]
                                    (one JSON line per event, in log order: a stream's, or a
                                    merchant's; after a position, or from a time: docs/audit.md)
  sika rails review [--json]        (the live payments and payouts no status check will ask about any
                                    more: their rail never gave a final answer; settle each with the
                                    provider: docs/connectors.md)
  sika docs openapi                 (prints the OpenAPI document; docs/openapi.json is this output)
  sika listen --forward-to URL [--events TYPE,...] [--api-base URL] [--state FILE] [--new-secret]
                                    (follows the merchant's events through the API and POSTs each to
                                    URL signed with the secret kept for this service and key, shown at
                                    start (--new-secret replaces it); the key: $SIKA_API_KEY (--api-key
                                    KEY works, with a warning: other users see it in the process list);
                                    URL: else $SIKA_API_BASE, else http://localhost:3000, https unless on
                                    this machine; FILE, the secret and where it resumes: else
                                    ~/.sika/listen.json. A service not up yet is waited for.
                                    docs/webhooks.md)`;

const ACTOR = 'cli';

class UsageError extends Error {}

/** An amount with its sign, `+100` or `-100`. */
const signed = (amount: number) => `${amount > 0 ? '+' : ''}${amount}`;

function out(value: unknown, json: boolean, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

/** Runs one command; the exit code is non-zero when a check found a problem. */
async function run(system: System, argv: string[], recorded: RecordedConfiguration | null): Promise<number> {
  const [group, action, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      email: { type: 'string' },
      json: { type: 'boolean', default: false },
      merchant: { type: 'string' },
      environment: { type: 'string' },
      scopes: { type: 'string' },
      password: { type: 'string' },
      role: { type: 'string' },
      country: { type: 'string' },
      from: { type: 'string' },
      at: { type: 'string' },
      since: { type: 'string' },
      rail: { type: 'string' },
      currency: { type: 'string' },
      to: { type: 'string' },
    },
  });
  const json = values.json ?? false;
  switch (`${group} ${action}`) {
    case 'merchants create': {
      const name = values.name?.trim();
      if (!name) throw new UsageError('--name is required');
      const email = values.email?.trim() || null;
      if (email !== null && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new UsageError('--email is not an e-mail address');
      const merchant = await createMerchant(system.store, system.clock, name, ACTOR, email);
      out({ id: merchant.id, api_keys: merchant.api_keys }, json, `merchant ${merchant.id}\nsandbox key: ${merchant.api_keys.sandbox}\nlive key:    ${merchant.api_keys.live}\n(keys are shown once)`);
      return 0;
    }
    case 'keys create': {
      const env = values.environment;
      if (!values.merchant || (env !== 'sandbox' && env !== 'live')) throw new UsageError('--merchant and --environment sandbox|live are required');
      const scopes = (values.scopes ?? '*')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const key = await createApiKey(system.store, system.clock, values.merchant, env, scopes, ACTOR, values.name?.trim() || 'Command-line key');
      out(key, json, `key ${key.id}: ${key.secret}\n(shown once)`);
      return 0;
    }
    case 'keys revoke': {
      const keyId = positionals[0];
      if (!values.merchant || !keyId) throw new UsageError('--merchant and KEY_ID are required');
      await revokeApiKey(system.store, system.clock, values.merchant, keyId, ACTOR);
      out({ id: keyId, revoked: true }, json, `key ${keyId} revoked`);
      return 0;
    }
    case 'admin keys': {
      const [verb, keyId] = positionals;
      if (verb === 'create') {
        const key = await createAdminKey(system.store, system.clock, values.name?.trim() || 'platform operator', ACTOR);
        out(key, json, `admin key ${key.id}: ${key.secret}\n(shown once)`);
        return 0;
      }
      if (verb === 'revoke' && keyId) {
        await revokeAdminKey(system.store, system.clock, keyId, ACTOR);
        out({ id: keyId, revoked: true }, json, `admin key ${keyId} revoked`);
        return 0;
      }
      throw new UsageError('admin keys create [--name NAME] | admin keys revoke KEY_ID');
    }
    case 'operator users': {
      const email = values.email?.trim();
      const role = values.role as OperatorRole | undefined;
      if (positionals[0] !== 'create' || !email || !role) throw new UsageError('operator users create --email ADDRESS --role ROLE [--name NAME]');
      if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new UsageError('--email is not an e-mail address');
      if (!OPERATOR_ROLES.includes(role)) throw new UsageError(`--role must be one of ${OPERATOR_ROLES.join(', ')}`);
      const invited = await system.operators.invite({ email, role, name: values.name?.trim() || email.split('@')[0]! }, { actor: ACTOR });
      out(
        { id: invited.operatorId, email: email.toLowerCase(), role, invitation_url: invited.invitationUrl, expires_at: invited.expiresAt },
        json,
        `operator ${invited.operatorId} (${email}), ${role}\ninvitation link, once, until ${invited.expiresAt}:\n${invited.invitationUrl}`,
      );
      return 0;
    }
    case 'users create': {
      const { merchant, email, password } = values;
      if (!merchant || !email || !password) throw new UsageError('--merchant, --email and --password are required');
      if (password.length < 8) throw new UsageError('--password needs at least 8 characters');
      const role = (values.role ?? 'owner') as Role;
      if (!ROLES.includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
      const country = (values.country ?? 'SN').toUpperCase();
      if (!isIsoCountry(country)) throw new UsageError('--country must be an ISO 3166-1 alpha-2 code');
      const row = await system.knex('read.merchants').where({ id: merchant }).first<{ name: string } | undefined>();
      if (!row) throw new UsageError(`no merchant ${merchant}`);
      const name = values.name?.trim() || email.split('@')[0]!;
      const id = await createMemberUser(system.accounts, system.organizations, { id: merchant, name: row.name }, { email, password, name, phone: null, role, country }, { actor: ACTOR });
      out({ id, email: email.toLowerCase(), merchant, role }, json, `user ${id} (${email}) for ${merchant}, ${role}`);
      return 0;
    }
    case 'messages list': {
      // Kept texts are sealed in the table; the outbox opens them with this service's key.
      const rows = await system.outbox.kept(values.email ? { recipient: values.email.trim().toLowerCase() } : {});
      const text = rows.map((r) => `${r.created_at.toISOString()} ${r.channel} to ${r.recipient} (${r.purpose}${r.sent_at ? ', delivered' : ''}): ${r.subject}${r.text ? `\n  ${r.text.replace(/\n/g, '\n  ')}` : ''}`);
      out(rows, json, text.join('\n') || 'no messages');
      return 0;
    }
    case 'projections rebuild': {
      const applied = await system.rebuildProjections(positionals);
      out({ rebuilt: positionals.length ? positionals : 'all', events: applied }, json, `rebuilt ${positionals.join(', ') || 'all read models'} from ${applied} events`);
      return 0;
    }
    case 'ledger balance': {
      const env = values.environment;
      if (values.rail !== undefined) {
        if (values.merchant !== undefined || values.at !== undefined) throw new UsageError('--rail reads every merchant as the ledger stands now: no --merchant, no --at');
        if (env !== undefined && env !== 'sandbox' && env !== 'live') throw new UsageError('--environment must be sandbox or live');
        const environment = env ?? 'live';
        const holdings = await railHoldings(system.knex, values.rail, environment);
        const lines = holdings.map((h) => `${h.currency}: ${h.amount}`);
        out({ rail: values.rail, environment, holdings }, json, [`what ${values.rail} should hold for Sika (${environment}), per currency`, ...(lines.length ? lines : ['nothing posted'])].join('\n'));
        return 0;
      }
      if (!values.merchant || !values.at) throw new UsageError('--merchant and --at are required');
      if (env !== undefined && env !== 'sandbox' && env !== 'live') throw new UsageError('--environment must be sandbox or live');
      const at = /^\d+$/.test(values.at) ? new Date(Number(values.at) * 1000 + 999) : new Date(values.at);
      if (Number.isNaN(at.getTime())) throw new UsageError('--at must be an ISO 8601 time or Unix seconds');
      const refs = await system
        .knex('read.balances')
        .where({ merchant_id: values.merchant, ...(env ? { environment: env } : {}) })
        .orderBy(['environment', 'currency'])
        .select<{ environment: Environment; currency: string }[]>('environment', 'currency');
      const balances = [];
      for (const ref of refs) balances.push({ ...ref, ...(await balanceFromLog(system, { merchantId: values.merchant, ...ref }, at)) });
      const lines = balances.map((b) => `${b.environment} ${b.currency}: available ${b.available}, pending ${b.pending}, reserved ${b.reserved}`);
      out({ merchant: values.merchant, at: at.toISOString(), balances }, json, [`balances of ${values.merchant} at ${at.toISOString()}`, ...lines].join('\n'));
      return 0;
    }
    case 'ledger statement': {
      const env = values.environment ?? 'live';
      if (env !== 'sandbox' && env !== 'live') throw new UsageError('--environment must be sandbox or live');
      if (!values.rail || !values.currency || !values.from || !values.to) throw new UsageError('--rail, --currency, --from and --to are required');
      const day = (text: string, name: string) => {
        if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(Date.parse(`${text}T00:00:00Z`))) throw new UsageError(`--${name} must be a day, YYYY-MM-DD`);
        return new Date(`${text}T00:00:00Z`);
      };
      const from = day(values.from, 'from');
      const to = new Date(day(values.to, 'to').getTime() + 86_400_000);
      if (to <= from) throw new UsageError('--to is before --from');
      const statement = await railStatement(system.knex, values.rail, env, values.currency.toLowerCase(), from, to);
      const lines = statement.lines.map((l) => `  ${l.kind}: ${signed(l.amount)} (${l.count} entries)`);
      out(statement, json, [`${statement.rail} (${env}) ${statement.currency}, ${values.from} to ${values.to} (UTC)`, `opening: ${statement.opening}`, ...lines, `closing: ${statement.closing}`].join('\n'));
      return 0;
    }
    case 'rails review': {
      const attempts = await attemptsForReview(system.knex);
      const lines = attempts.map((a) => `${a.object} ${a.id} of ${a.merchant_id}: ${a.status}, ${a.amount} ${a.currency}, created ${new Date(a.created * 1000).toISOString()}`);
      out(attempts, json, lines.join('\n') || 'nothing left for review');
      return 0;
    }
    case `reconcile ${action}`: {
      const env = values.environment ?? 'live';
      if (env !== 'sandbox' && env !== 'live') throw new UsageError('--environment must be sandbox or live');
      const connector = action === undefined ? null : system.connectors.named(env, action);
      if (!connector) throw new UsageError(`no connector ${action ?? ''} is configured for ${env} in ${configurationSource(system.config, recorded)} (docs/connectors.md)`);
      const report = await runReconciliation(system, connector, env, ACTOR);
      const lines = [
        ...report.wallets.map((w) => `wallet ${w.currency}: ledger expects ${w.expected}, ${report.rail} holds ${w.reported} (${w.difference > 0 ? '+' : ''}${w.difference})`),
        ...report.attempts.map((a) => `${a.kind} ${a.id} (${a.merchantId}): Sika ${a.sika}, ${report.rail} ${a.rail}${a.reportedAmount ? `, reported ${a.reportedAmount.amount} ${a.reportedAmount.currency}` : ''}`),
        ...(report.periods ?? []).map(
          (p) =>
            `${p.currency} since ${p.since ?? 'the start'}: ledger ${signed(p.expectedMoved)} (${p.lines.map((l) => `${l.kind} ${signed(l.amount)}`).join(', ') || 'nothing'}), ${report.rail} ${p.reportedMoved === null ? 'not known' : signed(p.reportedMoved)}${p.unexplained ? `, unexplained ${signed(p.unexplained)}` : ''}`,
        ),
      ];
      const differences = report.wallets.length + report.attempts.length;
      out(report, json, [`${report.rail} (${env}): ${report.checked} attempts checked, ${differences} differences (run ${report.runId})`, ...lines].join('\n'));
      return differences === 0 ? 0 : 1;
    }
    case 'audit verify': {
      const report = await verifyLog(system.store, system.knex, { ...(values.merchant ? { merchantId: values.merchant } : {}), ...(values.from ? { from: values.from } : {}) });
      const bad = report.firstBad;
      const scope = `${report.events} events in ${report.streams} streams, ${report.checkpoints} sealed checkpoints`;
      const where = bad?.event ? `${bad.event.streamId} version ${bad.event.version} (event ${bad.event.eventId}, position ${bad.position})` : `position ${bad?.position}`;
      out(report, json, bad ? `FAILED at ${where}: ${bad.reason}\n(read up to it: ${scope})` : `ok: ${scope}`);
      return bad ? 1 : 0;
    }
    case 'projections verify': {
      const differences = await system.verifyProjections(positionals);
      const what = positionals.join(', ') || 'all read models';
      const lines = differences.map((d) => `${d.table} ${JSON.stringify(d.key)}: live ${JSON.stringify(d.live)}, rebuilt ${JSON.stringify(d.rebuilt)}`);
      out({ verified: positionals.length ? positionals : 'all', differences }, json, differences.length === 0 ? `ok: ${what} equal their rebuild from the log` : [`${differences.length} rows differ:`, ...lines].join('\n'));
      return differences.length === 0 ? 0 : 1;
    }
    case 'audit stream': {
      const streamId = positionals[0];
      if (!streamId && !values.merchant) throw new UsageError('STREAM_ID or --merchant is required');
      const since = values.since === undefined ? undefined : /^\d+$/.test(values.since) ? new Date(Number(values.since) * 1000) : new Date(values.since);
      if (since && Number.isNaN(since.getTime())) throw new UsageError('--since must be an ISO 8601 time or Unix seconds');
      const records = auditRecords(system.store, {
        ...(streamId ? { streamId } : {}),
        ...(values.merchant ? { merchantId: values.merchant } : {}),
        ...(values.from ? { after: values.from } : {}),
        ...(since ? { since } : {}),
      });
      for await (const record of records) {
        if (!process.stdout.write(`${JSON.stringify(record)}\n`)) await once(process.stdout, 'drain');
      }
      return 0;
    }
    case 'docs openapi': {
      const { openApiDocument } = await import('../services/api/app.js');
      process.stdout.write(`${JSON.stringify(openApiDocument(system), null, 2)}\n`);
      return 0;
    }
    default:
      throw new UsageError(`unknown command: ${argv.join(' ')}`);
  }
}

/** `sika listen`: talks to a service over HTTP only, so it opens no database. */
async function runListen(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      'forward-to': { type: 'string' },
      events: { type: 'string' },
      'api-key': { type: 'string' },
      'api-base': { type: 'string' },
      state: { type: 'string' },
      'new-secret': { type: 'boolean', default: false },
    },
  });
  const forwardTo = values['forward-to'];
  const apiKey = values['api-key'] ?? process.env.SIKA_API_KEY;
  const apiBase = values['api-base'] ?? process.env.SIKA_API_BASE ?? 'http://localhost:3000';
  if (!forwardTo || !/^https?:\/\//.test(forwardTo)) throw new UsageError('--forward-to http(s)://… is required');
  if (!apiKey) throw new UsageError('SIKA_API_KEY (or --api-key) is required');
  const problem = apiBaseProblem(apiBase);
  if (problem !== null) throw new UsageError(problem);
  if (values['api-key'] !== undefined) {
    process.stderr.write('Warning: --api-key shows the key to other users of this machine (process list) and keeps it in shell history; export SIKA_API_KEY instead.\n');
  }
  // Tests only (docs/testing.md): a shorter first wait for a service that does not answer yet.
  const firstRetry = process.env.SIKA_LISTEN_FIRST_RETRY_MS;
  const firstRetryMs = firstRetry === undefined ? undefined : Number(firstRetry);
  if (firstRetryMs !== undefined && !(Number.isInteger(firstRetryMs) && firstRetryMs >= 1 && firstRetryMs <= 30_000)) throw new UsageError('SIKA_LISTEN_FIRST_RETRY_MS must be a whole number of milliseconds, 1 to 30000');
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  process.once('SIGTERM', () => stop.abort());
  await listen({
    apiBase,
    apiKey,
    forwardTo,
    events: (values.events ?? '')
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean),
    statePath: values.state ?? path.join(os.homedir(), '.sika', 'listen.json'),
    newSecret: values['new-secret'] ?? false,
    ...(firstRetryMs !== undefined ? { firstRetryMs } : {}),
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    signal: stop.signal,
  });
  process.stderr.write('Stopped.\n');
  return 0;
}

/** Where this command's configuration came from, for messages about what it lacks. */
function configurationSource(config: Config, recorded: RecordedConfiguration | null): string {
  return recorded !== null
    ? `the service's configuration (${serviceConfigurationFile(config.dataDir)}, recorded ${recorded.recordedAt})`
    : `this shell's environment: no service has recorded its configuration in ${config.dataDir} (the service records it at each start; start it once, or set DATA_DIR to where it keeps its data)`;
}

/**
 * Why this command must not open the embedded database of DATA_DIR, or null. The service makes it
 * at its first start; a command that made one elsewhere would hand out keys the service never
 * sees. `docs openapi` reads no data (it needs a database only to build the routes), so it may.
 */
function missingDatabase(config: Config, argv: string[]): string | null {
  if (config.databaseUrl !== null || hasCluster(config.dataDir) || `${argv[0]} ${argv[1]}` === 'docs openapi') return null;
  return `no database in ${config.dataDir}: the service makes it when it first starts (make start). Start the service once, or set DATA_DIR (or DATABASE_URL) to where the service keeps its data.`;
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv[0] === 'listen' && !argv.includes('--help')) return runListen(argv.slice(1));
  if (argv.length < 2 || argv.includes('--help')) {
    process.stderr.write(`${USAGE}\n`);
    return argv.includes('--help') ? 0 : 2;
  }
  const { config, recorded, ignored } = commandConfiguration(loadServiceConfig);
  if (ignored.length > 0)
    process.stderr.write(`sika: acting with the service's configuration (${serviceConfigurationFile(config.dataDir)}, recorded ${recorded!.recordedAt}); this shell's ${ignored.join(', ')} ${ignored.length === 1 ? 'is' : 'are'} not used\n`);
  const missing = missingDatabase(config, argv);
  if (missing !== null) throw new Error(missing);
  // Imported here, so that `sika listen`, which needs none of the service, starts at once.
  const { openSystem } = await import('../services/system.js');
  // The CLI logs only warnings: its stdout is for results (often parsed as JSON).
  const system = await openSystem(config, { log: createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, process.stderr), poolMax: 4 });
  try {
    return await run(system, argv, recorded);
  } finally {
    await system.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) process.stderr.write(`sika: ${err.message}\n${USAGE}\n`);
    else if (err instanceof ConfigError) process.stderr.write(`Configuration error: ${err.message}\n`);
    else if (isRefused(err)) process.stderr.write(`sika: ${err.message} (${err.code})\n`);
    else process.stderr.write(`sika: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
