// HTTP Basic authentication (contract §3): user name + password (scrypt), then API token.
// A password check costs milliseconds by design, so verified credentials are cached per
// process: the key is a hash of the header, and each hit is checked against the person's
// current password hash and token, so a changed password or token drops it at once and two
// server processes can never disagree.

import { hash as digest, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { Caller, Queryable } from '../store/types.ts';
import { authPersonById, authPersonByToken, authPersonByUserName, type AuthPerson as PersonAuthRow } from '../store/queries/people.ts';

const scrypt = promisify(scryptCb) as (pw: string, salt: Buffer, len: number, o: object) => Promise<Buffer>;
const N = 16384, R = 8, P = 1, LEN = 32;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, LEN, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/**
 * Exact comparison: scrypt's HMAC pads short keys with zero bytes, so `pw` and `pw\0` derive the
 * same key. No stored password can contain U+0000 (the fixture and every writer refuse it), so a
 * candidate holding one is simply wrong; it still pays for one derivation (no timing signal).
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  if (!stored) return false;
  const exact = !password.includes('\0');
  const [alg, n, r, p, salt, hash] = stored.split('$');
  if (alg !== 'scrypt') return false;
  const want = Buffer.from(hash, 'base64');
  const got = await scrypt(password, Buffer.from(salt, 'base64'), want.length, { N: Number(n), r: Number(r), p: Number(p), maxmem: 64 * 1024 * 1024 });
  return got.length === want.length && timingSafeEqual(got, want) && exact;
}

/** 40 lowercase hex digits (§3). */
export const newToken = (): string => randomBytes(20).toString('hex');

const toCaller = (r: PersonAuthRow): Caller => ({
  id: r.id, companyId: r.company_id, firm: r.firm === 1, admin: r.firm === 1 && r.administrator === 1,
  name: `${r.first_name} ${r.last_name}`,
});

/** Decode `Basic base64(user:password)`; null when it is not that. */
export function decodeBasic(header: string | undefined): { user: string; pass: string } | null {
  if (!header) return null;
  const m = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return null;
  const text = Buffer.from(m[1], 'base64').toString('utf8');
  const i = text.indexOf(':');
  if (i < 0) return null;
  return { user: text.slice(0, i), pass: text.slice(i + 1) };
}

interface Verified {
  readonly id: number; readonly hash: string | null; readonly token: string; caller: Caller; seen: string;
  /** Client addresses this header was verified from (with a guard: others are checked first). */
  readonly addrs: Set<string>;
}

/** What the Authenticator reports to a brute-force guard (see service/limits.ts). */
export interface AuthGuard {
  /** Before a password is verified: throws ApiError 429 when this name or address is blocked. */
  before(user: string, addr: string): Promise<void>;
  failed(user: string, addr: string): Promise<void>;
  succeeded(user: string, addr: string): Promise<void>;
}

export interface AuthOptions {
  /** The password check (tests count its calls). */
  readonly verify?: typeof verifyPassword;
  readonly guard?: AuthGuard | null;
}

export class Authenticator {
  private readonly cache = new Map<string, Verified>();
  /**
   * Checks under way, by header digest: concurrent requests with the same credentials share one
   * (D130). Ten connections opening at once otherwise ran ten scrypt derivations of 16 MiB each on the
   * thread pool, and glibc keeps that memory in the threads' arenas (+70 MB RSS for good). Only the
   * check is shared: the guard still sees every request, and a finished check is not remembered.
   */
  private readonly pending = new Map<string, Promise<PersonAuthRow | undefined>>();
  /**
   * The digest of the last header each connection sent (D212): a keep-alive client repeats one header,
   * and hashing it was ~3 µs of a ~75 µs read under load. Held by the connection object, so it goes with
   * the connection; it holds that connection's header, as Node's own request objects do while it lives.
   */
  private readonly digests = new WeakMap<object, { readonly header: string; readonly key: string }>();
  private readonly db: Queryable;
  private readonly max: number;
  private readonly verify: typeof verifyPassword;
  private readonly guard: AuthGuard | null;
  /** A hash of a random password with the real cost parameters: unknown names are verified against it. */
  private dummy: Promise<string> | null = null;
  constructor(db: Queryable, max = 1024, opts: AuthOptions = {}) {
    this.db = db;
    this.max = max;
    this.verify = opts.verify ?? verifyPassword;
    this.guard = opts.guard ?? null;
  }

  /**
   * The caller for an Authorization header, or null (401). `changeToken` is the store's change
   * token now: while it equals the one a cached entry was last checked at, nothing (so no person)
   * has changed and the entry stands without a query; otherwise the person is read again and the
   * entry dropped if the password hash or token changed.
   */
  async authenticate(header: string | undefined, changeToken?: string, addr = '', conn?: object): Promise<Caller | null> {
    if (!header) return null;
    // The key is a digest of the header: the cache never holds a password. `conn` (the socket): its last
    // header's digest, reused when this header is that same string.
    const last = conn && this.digests.get(conn);
    let key: string;
    if (last !== undefined && last.header === header) key = last.key;
    else {
      key = digest('sha256', header, 'base64');
      if (conn) this.digests.set(conn, { header, key });
    }
    const hit = this.cache.get(key);
    if (hit && this.guard && !hit.addrs.has(addr)) {
      // The same credentials from another address: a blocked address must not learn from a cached
      // answer that its guess was right.
      const cred = decodeBasic(header);
      if (cred) await this.guard.before(cred.user, addr);
      if (hit.addrs.size >= 16) hit.addrs.clear();
      hit.addrs.add(addr);
    }
    if (hit) {
      this.cache.delete(key); // refresh the LRU position (set again below)
      if (changeToken !== undefined && hit.seen === changeToken) {
        this.cache.set(key, hit);
        return hit.caller;
      }
      const row = await authPersonById(this.db, hit.id);
      if (row && row.password_hash === hit.hash && row.token === hit.token) {
        hit.caller = toCaller(row);
        hit.seen = changeToken ?? '';
        this.cache.set(key, hit);
        return hit.caller;
      }
    }
    const cred = decodeBasic(header);
    if (!cred) return null;
    await this.guard?.before(cred.user, addr);
    let check = this.pending.get(key);
    if (!check) {
      check = this.check(cred.user, cred.pass).finally(() => this.pending.delete(key));
      this.pending.set(key, check);
    }
    const row = await check;
    if (!row) {
      await this.guard?.failed(cred.user, addr);
      return null;
    }
    await this.guard?.succeeded(cred.user, addr);
    const caller = toCaller(row);
    this.cache.set(key, { id: row.id, hash: row.password_hash, token: row.token, caller, seen: changeToken ?? '', addrs: new Set([addr]) });
    if (this.cache.size > this.max) this.cache.delete(this.cache.keys().next().value!);
    return caller;
  }

  /**
   * User name and password (§3 form 1), then token (form 2). Every failure costs exactly one
   * scrypt verification, against the person's hash or a dummy one, so an unknown name answers in
   * the time of a wrong password. A valid token needs none (its time only tells its holder that it
   * is valid).
   */
  private async check(user: string, pass: string): Promise<PersonAuthRow | undefined> {
    const byName = await authPersonByUserName(this.db, user);
    if (byName?.password_hash) {
      if (await this.verify(pass, byName.password_hash)) return byName;
    }
    const byToken = user ? await authPersonByToken(this.db, user) : undefined;
    if (byToken) return byToken;
    if (!byName?.password_hash) await this.verify(pass, await (this.dummy ??= hashPassword(newToken())));
    return undefined;
  }
}
