/**
 * The service as `make start` runs it (dist/services/standalone/main.js with the Makefile's Node
 * flags and its embedded PostgreSQL), in a process group of its own so that one SIGKILL takes
 * everything down at once, PostgreSQL included, as a machine losing power would. It restarts on
 * the same data directory and port.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { root, serviceNodeFlags, startProcess, watched, type ServiceProcess } from '../support/child-process.js';
import { gone, postmasterPid, running } from '../support/data-dir.js';

/** The first start of a data directory runs initdb: slow on a busy machine. */
const START_TIMEOUT_MS = 180_000;

export class ServiceGroup {
  private process: ServiceProcess | undefined;
  /** Every run's output, kept for a failing seed's report. */
  readonly outputs: string[] = [];
  starts = 0;

  constructor(
    readonly dataDir: string,
    readonly env: Record<string, string>,
  ) {}

  get up(): boolean {
    return this.process !== undefined;
  }

  async start(): Promise<void> {
    const child = spawn(process.execPath, [...serviceNodeFlags(), path.join(root, 'dist/services/standalone/main.js')], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const proc = watched(child);
    this.process = proc;
    this.starts++;
    try {
      await proc.waitFor(/sika is serving/i, START_TIMEOUT_MS);
    } catch (err) {
      await this.kill();
      throw err;
    }
  }

  /** SIGKILL to the whole group: the service's processes and its PostgreSQL. */
  async kill(): Promise<void> {
    const proc = this.process;
    if (!proc) return;
    this.process = undefined;
    const postmaster = postmasterPid(this.dataDir);
    try {
      process.kill(-proc.child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    await proc.exit;
    this.outputs.push(proc.output());
    if (postmaster !== null && running(postmaster)) await gone(postmaster, 30_000);
  }

  /** A clean stop (SIGTERM), at the end of a run. */
  async stop(): Promise<void> {
    const proc = this.process;
    if (!proc) return;
    this.process = undefined;
    proc.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      try {
        process.kill(-proc.child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    }, 30_000);
    await proc.exit;
    clearTimeout(timer);
    this.outputs.push(proc.output());
  }

  /** `bin/sika` on the same data directory and configuration; its exit code and output. */
  async cli(args: string[]): Promise<{ code: number | null; output: string }> {
    const cli = startProcess('bin/cli.js', { ...this.env, LOG_LEVEL: 'silent' }, args);
    const code = await cli.exit;
    return { code, output: cli.output() };
  }

  /** The current run's output so far. */
  output(): string {
    return this.process?.output() ?? '';
  }
}
