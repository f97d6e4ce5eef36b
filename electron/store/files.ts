// Files of the data directory. It holds every API token and password hash, so it is private to the
// user who runs Bivouac: the directory 0700, every file the program writes 0600. Modes are set with
// an explicit chmod, never left to the umask, and an existing directory is repaired when it is opened
// (D30).

import { chmodSync, closeSync, constants, existsSync, lstatSync, mkdirSync, openSync, readdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Create `dir` (and missing parents) 0700, or repair it: the directory becomes 0700 and every entry
 * directly inside it loses its group and other bits (a regular file the owner could only read and
 * write becomes 0600; the owner's own bits are kept, so a script stays executable). Symbolic links
 * are left alone (chmod would follow them out of the directory).
 */
export function securePrivateDir(dir: string): void {
  refuseSharedDir(dir);
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(dir, PRIVATE_DIR_MODE);
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (!st || st.isSymbolicLink() || (st.mode & 0o077) === 0) continue;
    chmodSync(p, st.mode & 0o700);
  }
}

/**
 * A directory others use too is never made private (its mode and its entries' modes would change under
 * everyone else's feet: a data directory of /tmp would turn /tmp 0700 and every file in it 0600): the
 * file-system root, the home directory, and any directory with the sticky bit (/tmp, /var/tmp). Bad
 * input gets a clear error and nothing is touched; a directory of its own inside it is fine.
 */
function refuseSharedDir(dir: string): void {
  const abs = resolve(dir);
  const st = lstatSync(abs, { throwIfNoEntry: false });
  const why = abs === resolve('/') ? 'the file system\'s root'
    : abs === resolve(homedir()) ? 'your home directory'
      : st?.isDirectory() && (st.mode & 0o1000) !== 0 ? 'others may write in it'
        : null;
  if (why) throw new Error(`${abs} is a shared directory (${why}): Bivouac makes its data directory private to you, so give it one of its own, e.g. ${join(abs, 'bivouac')}`);
}

/** Make `path` exist and be 0600 (created empty if missing): SQLite gives its WAL and SHM the database's mode. */
export function securePrivateFile(path: string): void {
  if (!existsSync(path)) closeSync(openSync(path, constants.O_WRONLY | constants.O_CREAT, PRIVATE_FILE_MODE));
  chmodSync(path, PRIVATE_FILE_MODE);
}

/** chmod 0600 if the file exists. */
export function repairPrivateFile(path: string): void {
  if (existsSync(path)) chmodSync(path, PRIVATE_FILE_MODE);
}

/**
 * Write `data` to `path` readable by its owner only: the file is opened (created 0600), made 0600
 * BEFORE anything is written (an existing 0644 file never holds the new content while readable by
 * others), then truncated and written.
 */
export async function writePrivateFile(path: string, data: string): Promise<void> {
  const fh = await open(path, constants.O_WRONLY | constants.O_CREAT, PRIVATE_FILE_MODE);
  try {
    await fh.chmod(PRIVATE_FILE_MODE);
    await fh.truncate(0);
    await fh.writeFile(data);
  } finally {
    await fh.close();
  }
}
