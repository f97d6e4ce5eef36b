// Where the sync engine keeps the remote (team server) API token (issue #9, D110). The CLI keeps it
// in <dataDir>/remote-token (0600, the default); the desktop shell passes a vault backed by its
// safeStorage secrets, and then no plain-text file is left in the data directory.

import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writePrivateFile } from '../store/files.ts';

export interface TokenVault {
  read(): Promise<string | null>;
  write(token: string): Promise<void>;
  remove(): Promise<void>;
}

export const TOKEN_FILE = 'remote-token';

/** The default: a 0600 file in the data directory. */
export class FileTokenVault implements TokenVault {
  private readonly file: string;
  constructor(dataDir: string) { this.file = join(dataDir, TOKEN_FILE); }
  async read(): Promise<string | null> {
    try {
      return (await readFile(this.file, 'utf8')).trim() || null;
    } catch {
      return null;
    }
  }
  async write(token: string): Promise<void> { await writePrivateFile(this.file, `${token}\n`); }
  async remove(): Promise<void> { await rm(this.file, { force: true }); }
}

/** In memory only (an engine without a data directory: tests). */
export class MemoryTokenVault implements TokenVault {
  private token: string | null = null;
  async read(): Promise<string | null> { return this.token; }
  async write(token: string): Promise<void> { this.token = token; }
  async remove(): Promise<void> { this.token = null; }
}

/**
 * Another vault in place of the file: a token file left by an earlier version (or the CLI) is moved
 * into the vault on first use and deleted; every write and remove deletes it too.
 */
export function replacingTokenFile(dataDir: string, vault: TokenVault): TokenVault {
  const file = new FileTokenVault(dataDir);
  return {
    async read() {
      const old = await file.read();
      if (old !== null) {
        if ((await vault.read()) === null) await vault.write(old);
        await file.remove();
      }
      return vault.read();
    },
    async write(token) {
      await vault.write(token);
      await file.remove();
    },
    async remove() {
      await vault.remove();
      await file.remove();
    },
  };
}
