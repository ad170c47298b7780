/**
 * Locks shared by the processes of a test run: a directory made atomically, holding its owner's
 * pid. A lock whose owner has died is taken over.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Takes the lock `dir` for this process if it is free (or its owner dead): its release, or null when held. */
export function tryLock(dir: string): (() => void) | null {
  try {
    fs.mkdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    if (!ownerDied(dir)) return null;
    fs.rmSync(dir, { recursive: true, force: true });
    return tryLock(dir);
  }
  fs.writeFileSync(path.join(dir, 'pid'), String(process.pid));
  return () => fs.rmSync(dir, { recursive: true, force: true });
}

/** Waits for the lock `dir`; answers its release. */
export async function lock(dir: string): Promise<() => void> {
  for (;;) {
    const release = tryLock(dir);
    if (release) return release;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A lock's owner is gone (its pid not written yet, or the lock released meanwhile, is no death). */
function ownerDied(dir: string): boolean {
  let owner: number;
  try {
    owner = Number(fs.readFileSync(path.join(dir, 'pid'), 'utf8'));
  } catch {
    return false;
  }
  if (!(owner > 0)) return false;
  try {
    process.kill(owner, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'EPERM';
  }
}
