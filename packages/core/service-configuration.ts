import fs from 'node:fs';
import path from 'node:path';
import type { Config } from './config.js';

type Env = Record<string, string | undefined>;

/** A configuration and the variables it was read from: those of the environment its loader asked for and found set. */
export interface ReadConfiguration<C extends Config = Config> {
  config: C;
  variables: Record<string, string>;
}

/** Where the service records the configuration it runs with: in DATA_DIR, beside its database and secrets. */
export const serviceConfigurationFile = (dataDir: string) => path.join(dataDir, 'service-configuration.json');

/**
 * The configuration `load` makes of these variables (the service's: services/config.ts), and which
 * of them it read. The variables are learned by watching `load` read, so no list of names is kept
 * beside the parsers.
 */
export function readConfiguration<C extends Config>(load: (env: Env) => C, env: Env = process.env): ReadConfiguration<C> {
  const variables: Record<string, string> = {};
  const watched = new Proxy(env, {
    get(target, name) {
      const value = target[name as string];
      if (typeof name === 'string' && value !== undefined && value !== '') variables[name] = value;
      return value;
    },
  });
  const config = load(watched);
  // DATA_DIR as the service resolved it: a relative one means something else from another directory.
  variables.DATA_DIR = config.dataDir;
  return { config, variables };
}

export interface RecordedConfiguration {
  recordedAt: string;
  variables: Record<string, string>;
}

/**
 * Records the variables the service started with, so `bin/sika` acts with the service's
 * configuration (its rails' credentials, its database) rather than whatever its own shell has
 * (docs/operator.md, "The command line"). Owner-only: it holds the rails' secrets, as DATA_DIR's
 * other files do. Written whole (a rename), so a command never reads half of it.
 */
export function recordServiceConfiguration(read: ReadConfiguration, at: Date): void {
  const file = serviceConfigurationFile(read.config.dataDir);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const recorded: RecordedConfiguration = { recordedAt: at.toISOString(), variables: read.variables };
  const partial = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(partial, `${JSON.stringify(recorded, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(partial, file);
}

/** The configuration the service recorded in this DATA_DIR, or null when no service has started with it. */
export function recordedServiceConfiguration(dataDir: string): RecordedConfiguration | null {
  let text: string;
  try {
    text = fs.readFileSync(serviceConfigurationFile(dataDir), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return JSON.parse(text) as RecordedConfiguration;
}

/**
 * The configuration a command runs with: the service's, recorded in the DATA_DIR the command's
 * own environment names (or the default one), when there is one and the command's environment
 * names no other database (a DATABASE_URL of its own that the service does not use is another
 * service's: the command's environment is then its configuration); the command's environment otherwise.
 * `ignored` names the command's variables that differ from the service's, which it does not use.
 */
export function commandConfiguration<C extends Config>(load: (env: Env) => C, env: Env = process.env): { config: C; recorded: RecordedConfiguration | null; ignored: string[] } {
  const own = readConfiguration(load, env);
  const found = recordedServiceConfiguration(own.config.dataDir);
  const namesAnother = own.variables.DATABASE_URL !== undefined && own.variables.DATABASE_URL !== found?.variables.DATABASE_URL;
  const recorded = namesAnother ? null : found;
  if (recorded === null) return { config: own.config, recorded, ignored: [] };
  const ignored = Object.keys(own.variables).filter((name) => name !== 'DATA_DIR' && name !== 'LOG_LEVEL' && own.variables[name] !== recorded.variables[name]);
  // The command's LOG_LEVEL still applies: it is about this command's output, not the service.
  const logLevel = own.variables.LOG_LEVEL;
  return { config: load({ ...recorded.variables, ...(logLevel !== undefined ? { LOG_LEVEL: logLevel } : {}) }), recorded, ignored: ignored.sort() };
}
