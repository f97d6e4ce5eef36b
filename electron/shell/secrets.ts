// Secrets of the desktop app (the local API token, the team server's token), encrypted at rest with
// Electron's safeStorage (Keychain, DPAPI, libsecret/kwallet) in <userData>/secrets.json. Where the
// platform offers no keyring (a Linux without one: Chromium would fall back to a hard-coded key), they
// are kept with file permissions only (0600) and the file says so ("encrypted": false), as does the
// settings panel.

import { readJson, writeFileAtomic } from './settings.ts';
import type { ElectronPort } from './port.ts';
import type { TokenVault } from '../sync/token-vault.ts';

export type SecretName = 'localToken' | 'remoteToken';

interface SecretsFile {
  readonly encrypted: boolean;
  readonly values: Record<string, string>;
  /**
   * Secrets that could not be decrypted when the file was last written (the keyring not available: a session
   * without one; or another keyring's): kept as they were, read once that keyring is back.
   */
  readonly sealed: Record<string, string>;
}

/** A secret as read: `final` false when it is encrypted and the keyring is not available yet (read it again later). */
interface Read { readonly value: string | null; readonly final: boolean }

export class Secrets {
  private readonly file: string;
  private readonly safe: ElectronPort['safeStorage'];
  /**
   * Values already decrypted (the log asks for them on every line; the keyring is asked once). Only final
   * answers: Electron's keyring is not available on Windows and Linux until the app is ready, and a line logged
   * before that must not make a secret read as nothing for the session (and be dropped by the next write).
   */
  private readonly known = new Map<SecretName, string | null>();
  constructor(file: string, safe: ElectronPort['safeStorage']) {
    this.file = file;
    this.safe = safe;
  }

  get encrypted(): boolean { return this.safe.isEncryptionAvailable(); }

  private read(): SecretsFile {
    const raw = readJson(this.file) as Partial<SecretsFile> | null;
    const record = (v: unknown): Record<string, string> => (typeof v === 'object' && v !== null ? { ...(v as Record<string, string>) } : {});
    return { encrypted: raw?.encrypted === true, values: record(raw?.values), sealed: record(raw?.sealed) };
  }

  get(name: SecretName): string | null {
    if (this.known.has(name)) return this.known.get(name) ?? null;
    const r = this.load(name);
    if (r.final) this.known.set(name, r.value);
    return r.value;
  }

  private load(name: SecretName): Read {
    const f = this.read();
    const v = f.values[name];
    if (typeof v === 'string' && !f.encrypted) return { value: v, final: true };
    const cipher = typeof v === 'string' ? v : f.sealed[name];
    if (typeof cipher !== 'string') return { value: null, final: true };
    if (!this.safe.isEncryptionAvailable()) return { value: null, final: false };
    try {
      return { value: this.safe.decryptString(Buffer.from(cipher, 'base64')), final: true };
    } catch {
      return { value: null, final: true }; // another keyring's (another user, a restored profile): nothing here; a write keeps it sealed
    }
  }

  set(name: SecretName, value: string | null): void {
    const f = this.read();
    const encrypted = this.safe.isEncryptionAvailable();
    // Re-encode every value the same way (a keyring that appeared since encrypts the old ones too). One that
    // cannot be read now (the keyring not available yet, or another keyring's: a backend switched on Linux) is
    // kept sealed as it was, never dropped: it goes when its name is written or removed.
    const plain: Record<string, string> = {};
    const sealed: Record<string, string> = {};
    for (const k of new Set([...Object.keys(f.values), ...Object.keys(f.sealed)])) {
      if (k === name) continue;
      const v = this.get(k as SecretName);
      if (v !== null) plain[k] = v;
      else {
        const cipher = typeof f.values[k] === 'string' && f.encrypted ? f.values[k] : f.sealed[k];
        if (typeof cipher === 'string') sealed[k] = cipher;
      }
    }
    if (value !== null) plain[name] = value;
    const values = Object.fromEntries(Object.entries(plain).map(([k, v]) => [k, encrypted ? Buffer.from(this.safe.encryptString(v)).toString('base64') : v]));
    const out = Object.keys(sealed).length ? { encrypted, values, sealed } : { encrypted, values };
    writeFileAtomic(this.file, `${JSON.stringify(out, null, 2)}\n`);
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
