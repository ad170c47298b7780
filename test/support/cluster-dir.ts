import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Memory-backed storage, where the machine has it (Linux's tmpfs). */
const IN_MEMORY = '/dev/shm';

/** What the run's servers may fill there at most: a CI run peaked at about 400 MB. */
const IN_MEMORY_NEEDED_BYTES = 2 * 1024 ** 3;

/**
 * A new directory for the suites' throwaway PostgreSQL clusters: in memory where the machine has
 * 2 GB of it free, else under the system's temporary directory; removed by whoever made it.
 *
 * Each test copies a 12 MB template into a database of about a thousand files and drops it when
 * it ends. On this machine's ext4 (no journal), making a file after thousands were deleted has
 * the kernel look for a free inode deleted long enough ago (`recently_deleted`), block by block:
 * a copy cost PostgreSQL 0.6–1.2 CPU-seconds there, against 0.05 in memory. Open to others
 * (0755) so that PostgreSQL, which runs as `postgres` when the suites run as root, keeps its
 * cluster here instead of under /var/lib/sika (packages/core/embedded-postgres.ts).
 */
export function throwawayClusterDir(): string {
  let root = os.tmpdir();
  try {
    fs.accessSync(IN_MEMORY, fs.constants.W_OK);
    const { bavail, bsize } = fs.statfsSync(IN_MEMORY);
    // A container's small /dev/shm (Docker's is 64 MB) would fill: the temporary directory then.
    if (bavail * bsize >= IN_MEMORY_NEEDED_BYTES) root = IN_MEMORY;
  } catch {
    // No tmpfs here, or not ours to write: the temporary directory.
  }
  const dir = fs.mkdtempSync(path.join(root, 'sika-test-'));
  fs.chmodSync(dir, 0o755);
  return dir;
}
