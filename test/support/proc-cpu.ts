import fs from 'node:fs';
/**
 * CPU seconds from Linux's /proc/self/stat (0 elsewhere): this process's own (utime, stime) and
 * its reaped children's with what they reaped in turn (cutime, cstime).
 */
export function procCpuSeconds(which: { own: boolean; reaped: boolean }): number {
  try {
    // After the command's closing parenthesis: utime, stime, cutime, cstime are fields 11–14.
    const fields = fs
      .readFileSync('/proc/self/stat', 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ')
      .map(Number);
    const own = which.own ? fields[11]! + fields[12]! : 0;
    const reaped = which.reaped ? fields[13]! + fields[14]! : 0;
    // Linux's USER_HZ, the unit of /proc's times, on every architecture Node runs on.
    return (own + reaped) / 100;
  } catch {
    return 0;
  }
}
