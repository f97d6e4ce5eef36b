// Secrets of the desktop app (the local API token, the team server's token), encrypted at rest with
// Electron's safeStorage (Keychain, DPAPI, libsecret/kwallet) in <userData>/secrets.json. Where the
// platform offers no keyring (a Linux without one: Chromium would fall back to a hard-coded key), they
// are kept with file permissions only (0600) and the file says so ("encrypted": false), as does the
// settings panel.

import { readJson, writeFileAtomic } from './settings.ts';
import type { ElectronPort } from './port.ts';
import type { TokenVault } from '../sync/token-vault.ts';

export type SecretName = 'localToken' | 'remoteToken';

interface SecretsFile { readonly encrypted: boolean; readonly values: Record<string, string> }

export class Secrets {
  private readonly file: string;
  private readonly safe: ElectronPort['safeStorage'];
  /** Values already decrypted (the log asks for them on every line; the keyring is asked once). */
  private readonly known = new Map<SecretName, string | null>();
  constructor(file: string, safe: ElectronPort['safeStorage']) {
    this.file = file;
    this.safe = safe;
  }

  get encrypted(): boolean { return this.safe.isEncryptionAvailable(); }

  private read(): SecretsFile {
    const raw = readJson(this.file) as Partial<SecretsFile> | null;
    const values = raw && typeof raw.values === 'object' && raw.values !== null ? raw.values : {};
    return { encrypted: raw?.encrypted === true, values: { ...values } };
  }

  get(name: SecretName): string | null {
    if (!this.known.has(name)) this.known.set(name, this.load(name));
    return this.known.get(name) ?? null;
  }

  private load(name: SecretName): string | null {
    const f = this.read();
    const v = f.values[name];
    if (typeof v !== 'string') return null;
    if (!f.encrypted) return v;
    try {
      return this.safe.isEncryptionAvailable() ? this.safe.decryptString(Buffer.from(v, 'base64')) : null;
    } catch {
      return null; // the keyring changed (another user, a restored profile): the secret is gone
    }
  }

  set(name: SecretName, value: string | null): void {
    const f = this.read();
    const encrypted = this.safe.isEncryptionAvailable();
    // Re-encode every value the same way (a keyring that appeared since encrypts the old ones too).
    const plain: Record<string, string> = {};
    for (const k of Object.keys(f.values)) {
      const v = this.get(k as SecretName);
      if (v !== null) plain[k] = v;
    }
    if (value === null) delete plain[name];
    else plain[name] = value;
    const values = Object.fromEntries(Object.entries(plain).map(([k, v]) => [k, encrypted ? Buffer.from(this.safe.encryptString(v)).toString('base64') : v]));
    writeFileAtomic(this.file, `${JSON.stringify({ encrypted, values }, null, 2)}\n`);
    this.known.set(name, value);
  }

  /** One secret as the sync engine's token vault (the remote token, D110). */
  vault(name: SecretName): TokenVault {
    return {
      read: async () => this.get(name),
      write: async (t) => this.set(name, t),
      remove: async () => this.set(name, null),
    };
  }

  /** Every secret's value (for the log's redaction). */
  all(): string[] {
    return (['localToken', 'remoteToken'] as const).map((n) => this.get(n)).filter((v): v is string => !!v);
  }
}
