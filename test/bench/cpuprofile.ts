/**
 * Reduces a V8 CPU profile (`node --cpu-prof`) to its top frames: self and total time, each also
 * per operation, over an optional window of the process's monotonic clock (the one of
 * `process.hrtime`, which the profile's timestamps share), and the self time by source file.
 * The bench's process-model row writes one (BENCH_PROFILE_DIR, docs/performance.md); to reduce
 * one again:
 *
 *   node dist/test/bench/cpuprofile.js <file.cpuprofile> [--per N] [--from µs] [--to µs] [--top N]
 *
 * where `--per` divides every figure by N operations (payouts) and the window bounds come from the
 * `window.json` the bench writes beside the profile (`--window <file>` reads all three from it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixed, table } from './common.js';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The window and divisor the bench records beside a profile. */
export interface ProfileWindow {
  /** Monotonic microseconds (process.hrtime) where the measured work began and ended. */
  fromUs: number;
  toUs: number;
  /** Operations done in the window (complete payouts). */
  operations: number;
  /**
   * The process's CPU seconds over the window, from /proc. The profiler samples the thread
   * whenever it is not idle, descheduled or not: on a busy machine its busy time exceeds its CPU,
   * so shares are the profile's figure and the CPU per operation is this, spread by share.
   */
  cpuSeconds?: number;
}

export interface FrameCost {
  frame: string;
  where: string;
  selfMs: number;
  totalMs: number;
}

export interface ProfileSummary {
  /** Wall milliseconds of the window the samples cover. */
  windowMs: number;
  /** Sampled milliseconds not idle: the thread's CPU as the profiler saw it. */
  busyMs: number;
  operations: number;
  /** The process's CPU milliseconds over the window, where known (ProfileWindow.cpuSeconds). */
  cpuMs: number | null;
  frames: FrameCost[];
  /** Self time summed per source file (node's internals and V8's pseudo-frames by name). */
  files: { file: string; selfMs: number }[];
}

/** Where a file belongs: its npm package, the project's directory (two levels under dist/), node's module, or the pseudo-frame itself (writev, the garbage collector). */
export function packageOf(file: string): string {
  if (file.startsWith('node_modules/')) return file.split('/')[1]!;
  if (file.startsWith('dist/')) return file.split('/').slice(1, 3).join('/');
  if (file.startsWith('node:')) return file.replace(/^node:(internal\/)?/, 'node:').split('/')[0]!;
  return file;
}

/** Self time summed per package (packageOf), largest first. */
export function byPackage(s: ProfileSummary): { name: string; selfMs: number }[] {
  const sums = new Map<string, number>();
  for (const f of s.files) sums.set(packageOf(f.file), (sums.get(packageOf(f.file)) ?? 0) + f.selfMs);
  return [...sums.entries()].map(([name, selfMs]) => ({ name, selfMs })).sort((a, b) => b.selfMs - a.selfMs);
}

/** Pseudo-frames: no code of anyone's, the thread waiting. */
const IDLE = new Set(['(idle)']);
const ROOT = '(root)';

/** A source location short enough to read: the path inside the project (dist/ and node_modules/ kept as they are), or node's own module. */
function shortUrl(url: string): string {
  if (url === '') return '';
  const file = url.startsWith('file://') ? fileURLToPath(url) : url;
  const inModules = file.lastIndexOf('/node_modules/');
  if (inModules >= 0) return file.slice(inModules + 1);
  const inDist = file.indexOf('/dist/');
  return inDist >= 0 ? file.slice(inDist + 1) : file;
}

/** Sums a profile's samples within [fromUs, toUs] per frame (function and location): self time, and total time counted once per sample however deep a frame recurses. */
export function summarize(profile: CpuProfile, window?: Partial<ProfileWindow>): ProfileSummary {
  const byId = new Map<number, ProfileNode>(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = (n: ProfileNode) => {
    const f = n.callFrame;
    const where = shortUrl(f.url);
    return { frame: f.functionName || '(anonymous)', where: where ? `${where}:${f.lineNumber + 1}` : '', file: where || f.functionName };
  };
  const from = window?.fromUs ?? -Infinity;
  const to = window?.toUs ?? Infinity;
  const frames = new Map<string, FrameCost>();
  const files = new Map<string, number>();
  let busy = 0;
  let first = Infinity;
  let last = -Infinity;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    // A sample stands for the time until the next one (the profile's end for the last).
    const next = i + 1 < profile.samples.length ? at + (profile.timeDeltas[i + 1] ?? 0) : profile.endTime;
    if (at < from || at > to) continue;
    const ms = Math.max(0, next - at) / 1000;
    first = Math.min(first, at);
    last = Math.max(last, next);
    const leaf = byId.get(profile.samples[i]!);
    if (!leaf || IDLE.has(leaf.callFrame.functionName)) continue;
    busy += ms;
    const seen = new Set<string>();
    for (let id: number | undefined = leaf.id, self = true; id !== undefined; id = parent.get(id), self = false) {
      const node = byId.get(id)!;
      if (node.callFrame.functionName === ROOT) break;
      const k = keyOf(node);
      const key = `${k.frame}|${k.where}`;
      let cost = frames.get(key);
      if (!cost) frames.set(key, (cost = { frame: k.frame, where: k.where, selfMs: 0, totalMs: 0 }));
      if (self) {
        cost.selfMs += ms;
        files.set(k.file, (files.get(k.file) ?? 0) + ms);
      }
      if (!seen.has(key)) {
        seen.add(key);
        cost.totalMs += ms;
      }
    }
  }
  return {
    windowMs: last > first ? (last - first) / 1000 : 0,
    busyMs: busy,
    operations: window?.operations ?? 0,
    cpuMs: window?.cpuSeconds === undefined ? null : window.cpuSeconds * 1000,
    frames: [...frames.values()],
    files: [...files.entries()].map(([file, selfMs]) => ({ file, selfMs })).sort((a, b) => b.selfMs - a.selfMs),
  };
}

/** The summary as text: the busy time per operation, the top frames by self time and by total time, and the top files by self time. */
export function summaryText(s: ProfileSummary, top = 25): string[] {
  const per = s.operations > 0 ? s.operations : null;
  // µs of CPU per operation: the process's CPU (when known, else the profile's busy time) spread by share.
  const scale = s.cpuMs ?? s.busyMs;
  const perOp = (ms: number) => (per === null ? '' : fixed(((ms / Math.max(s.busyMs, 1e-9)) * scale * 1000) / per, 0));
  const share = (ms: number) => `${fixed((100 * ms) / Math.max(s.busyMs, 1e-9), 1)} %`;
  const unit = per === null ? '' : ` (µs/op: µs of ${s.cpuMs === null ? "the profile's busy time" : 'CPU'} per operation, ÷ ${per})`;
  const frameRows = (sorted: FrameCost[], by: 'selfMs' | 'totalMs') => sorted.slice(0, top).map((f) => [fixed(f[by], 0), share(f[by]), perOp(f[by]), f.frame, f.where]);
  return [
    `profile window ${fixed(s.windowMs / 1000, 2)} s; busy (not idle) ${fixed(s.busyMs / 1000, 2)} s` +
      (s.cpuMs === null ? '' : `; CPU ${fixed(s.cpuMs / 1000, 2)} s`) +
      (per === null ? '' : `; ${per} operations: ${fixed(scale / per, 3)} ms of this process's ${s.cpuMs === null ? 'busy time' : 'CPU'} each`),
    `top frames by self time${unit}`,
    table(
      ['self ms', 'share', 'µs/op', 'function', 'where'],
      frameRows(
        [...s.frames].sort((a, b) => b.selfMs - a.selfMs),
        'selfMs',
      ),
    ),
    `top frames by total time (self and what they call)${unit}`,
    table(
      ['total ms', 'share', 'µs/op', 'function', 'where'],
      frameRows(
        [...s.frames].sort((a, b) => b.totalMs - a.totalMs),
        'totalMs',
      ),
    ),
    `the project's own functions (dist/) by total time${unit}`,
    table(
      ['total ms', 'share', 'µs/op', 'function', 'where'],
      frameRows(
        s.frames.filter((f) => f.where.startsWith('dist/')).sort((a, b) => b.totalMs - a.totalMs),
        'totalMs',
      ),
    ),
    `self time by package (npm package, the project's directory, node's module)${unit}`,
    table(
      ['self ms', 'share', 'µs/op', 'package'],
      byPackage(s)
        .slice(0, top)
        .map((f) => [fixed(f.selfMs, 0), share(f.selfMs), perOp(f.selfMs), f.name]),
    ),
  ];
}

/** The profile `node --cpu-prof --cpu-prof-dir=dir` wrote for process `pid` (its default name holds the pid), or null. */
export function newestProfile(dir: string, pid: number): string | null {
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile') && f.split('.').includes(String(pid)));
  return file ? path.join(dir, file) : null;
}

function main(argv: string[]): void {
  const file = argv[0];
  if (!file || file.startsWith('--')) {
    process.stderr.write('usage: node dist/test/bench/cpuprofile.js <file.cpuprofile> [--window window.json] [--per N] [--from µs] [--to µs] [--top N]\n');
    process.exit(2);
  }
  const option = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const windowFile = option('window');
  const window: Partial<ProfileWindow> = windowFile ? (JSON.parse(fs.readFileSync(windowFile, 'utf8')) as ProfileWindow) : {};
  for (const [name, key] of [
    ['from', 'fromUs'],
    ['to', 'toUs'],
    ['per', 'operations'],
  ] as const) {
    const v = option(name);
    if (v !== undefined) window[key] = Number(v);
  }
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  process.stdout.write(`${summaryText(summarize(profile, window), Number(option('top') ?? 25)).join('\n')}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) main(process.argv.slice(2));
