// Issue #6, "Authentication and secrets": a password is compared exactly (a trailing NUL is not
// the same password), and an unknown user name does the same work as a known one with a wrong
// password (one scrypt verification), so user names cannot be enumerated by timing.
// No timing asserts here: D65 measured the times side by side (bench/auth-timing.ts, in git at a7a4e62).

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Authenticator, verifyPassword } from '../../../electron/service/auth.ts';
import { harness, type Harness } from '../../support/helpers.ts';

const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

describe('exact password comparison', () => {
  let h: Harness;
  beforeEach(async () => { h = await harness(); });
  afterEach(async () => { await h.close(); });

  it('refuses the right password followed by a NUL byte (HTTP)', async () => {
    for (const pass of ['ada-pass-1\0', 'ada-pass-1\0\0', '\0ada-pass-1', 'ada-pass-1 ']) {
      const r = await h.req(null, 'GET', '/me.xml', undefined, { authorization: basic('ada', pass) });
      expect(r.status, JSON.stringify(pass)).toBe(401);
    }
    expect((await h.req(null, 'GET', '/me.xml', undefined, { authorization: basic('ada', 'ada-pass-1') })).status).toBe(200);
  });

  it('verifyPassword: a trailing NUL is a different password', async () => {
    const row = await h.store.get<{ password_hash: string }>("SELECT password_hash FROM people WHERE user_name = 'ada'");
    expect(await verifyPassword('ada-pass-1', row!.password_hash)).toBe(true);
    expect(await verifyPassword('ada-pass-1\0', row!.password_hash)).toBe(false);
  });
});

describe('no user-name enumeration', () => {
  let h: Harness;
  beforeEach(async () => { h = await harness(); });
  afterEach(async () => { await h.close(); });

  function counting(): { calls: (string | null)[]; verify: typeof verifyPassword } {
    const calls: (string | null)[] = [];
    return { calls, verify: async (pw, stored) => { calls.push(stored); return verifyPassword(pw, stored); } };
  }

  it('an unknown user name costs one verification against a dummy hash, like a wrong password', async () => {
    const known = counting();
    const a = new Authenticator(h.store, 1024, { verify: known.verify });
    expect(await a.authenticate(basic('ada', 'wrong'))).toBeNull();
    expect(known.calls).toHaveLength(1);
    const adaHash = (await h.store.get<{ password_hash: string }>("SELECT password_hash FROM people WHERE user_name = 'ada'"))!.password_hash;
    expect(known.calls[0]).toBe(adaHash);

    const unknown = counting();
    const b = new Authenticator(h.store, 1024, { verify: unknown.verify });
    expect(await b.authenticate(basic('nobody-here', 'wrong'))).toBeNull();
    expect(unknown.calls).toHaveLength(1);
    expect(unknown.calls[0]).toMatch(/^scrypt\$16384\$8\$1\$/); // same cost parameters as a real hash
    expect(unknown.calls[0]).not.toBe(adaHash);
    // Empty user name too.
    expect(await b.authenticate(basic('', 'x'))).toBeNull();
    expect(unknown.calls).toHaveLength(2);
  });

  it('a token needs no password verification; a wrong token costs one like any unknown name', async () => {
    const c = counting();
    const a = new Authenticator(h.store, 1024, { verify: c.verify });
    expect((await a.authenticate(basic('5aac8c4132687845b7119d564bfd9980c282a594', 'X')))!.name).toBe('Fran Firm');
    expect(c.calls).toHaveLength(0);
    expect(await a.authenticate(basic('0'.repeat(40), 'X'))).toBeNull();
    expect(c.calls).toHaveLength(1);
  });
});
