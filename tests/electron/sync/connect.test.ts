// The connect phase alone (electron/sync/connect.ts, D317) against a fake remote: a refusal changes
// nothing (and a shared server or a bad URL does not even contact the remote); a link writes the state
// and the token, and what it returns puts the directory back exactly (D256); a disconnect keeps was_*.

import { describe, expect, it } from 'vitest';
import * as q from '../../../electron/store/queries/replica.ts';
import { link, restoreDirectory, Tokens, unlink, untouchedSince, type ConnectEnv } from '../../../electron/sync/connect.ts';
import { MemoryTokenVault } from '../../../electron/sync/token-vault.ts';
import { RemoteError } from '../../../electron/sync/remote.ts';
import type { SyncError } from '../../../electron/service/sync.ts';
import { FakeRemote, phaseEnv } from '../../support/sync-phase-fake.ts';

/** A remote whose /me.xml says who the credentials are (or fails). */
class FakeServer extends FakeRemote {
  meAnswer: () => Promise<Record<string, unknown>> = async () => ({ id: 7, user_name: 'ada', administrator: 'true', token: 'tok-7' });
  async me() { this.log.push('GET /me.xml'); return this.meAnswer() as never; }
  async capabilities() { return { feed: true, idempotency: true, batch: null }; }
}

function setup(network: string | null = null) {
  const { store } = phaseEnv();
  const tokens = new Tokens(new MemoryTokenVault());
  const remotes: FakeServer[] = [];
  const env: ConnectEnv<FakeServer> = {
    store, network, tokens, signal: new AbortController().signal,
    remoteFor: (url) => { const r = new FakeServer(); Object.assign(r, { url: url.replace(/\/+$/, '') }); remotes.push(r); return r; },
  };
  const current = () => ({ remote: null, kind: null });
  return { store, tokens, env, remotes, current };
}

const status = (e: unknown) => (e as SyncError).status;

describe('connect phase', () => {
  it('refuses a server that serves a network, or a bad URL, without contacting the remote', async () => {
    const a = setup('it listens on 0.0.0.0');
    const e1 = await link(a.env, 'http://remote.test', { token: 't' }, null, a.current).catch((e: unknown) => e);
    expect(status(e1)).toBe(409);
    expect((e1 as Error).message).toContain('it listens on 0.0.0.0');
    const b = setup();
    const e2 = await link(b.env, 'ftp://remote.test', { token: 't' }, null, b.current).catch((e: unknown) => e);
    expect(status(e2)).toBe(422);
    expect([...a.remotes, ...b.remotes]).toEqual([]);
    expect((await q.state(b.store)).size).toBe(0);
  });

  it('refused credentials change nothing: no state, no token', async () => {
    const a = setup();
    a.env = { ...a.env, remoteFor: (url) => { const r = new FakeServer(); Object.assign(r, { url }); r.meAnswer = () => Promise.reject(new RemoteError(401, 'Unauthorized')); return r; } };
    const e = await link(a.env, 'http://remote.test', { user: 'ada', password: 'wrong' }, null, a.current).catch((x: unknown) => x);
    expect(status(e)).toBe(422);
    expect((await q.state(a.store)).size).toBe(0);
    expect(await a.tokens.read()).toBeNull();
  });

  it('links an empty directory (state, token), and what it returns puts everything back', async () => {
    const a = setup();
    const l = await link(a.env, 'http://remote.test/', { user: 'ada', password: 'pw' }, null, a.current);
    const st = await q.state(a.store);
    expect(st.get('url')).toBe('http://remote.test');
    expect(st.get('user')).toBe('ada');
    expect(st.get('self_remote')).toBe('7');
    expect(st.get('client')).toMatch(/^[0-9a-f]{16}$/);
    expect(st.get('password_hash')).toBeTruthy();
    expect(await a.tokens.read()).toBe('tok-7'); // the API token from /me.xml, never the password
    expect(l.remote.url).toBe('http://remote.test');
    expect(l.before.snap).not.toBeNull(); // new to this remote: everything goes back on a refusal
    expect(await untouchedSince(a.store, l)).toBe(true);
    await restoreDirectory(a.store, a.tokens, l.before);
    expect((await q.state(a.store)).size).toBe(0);
    expect(await a.tokens.read()).toBeNull();
  });

  it('refuses another remote than the one linked, and another person of the same one', async () => {
    const a = setup();
    await link(a.env, 'http://remote.test', { token: 'tok-7' }, null, a.current);
    const e1 = await link(a.env, 'http://other.test', { token: 'x' }, null, a.current).catch((x: unknown) => x);
    expect(status(e1)).toBe(409);
    a.env = { ...a.env, remoteFor: (url) => { const r = new FakeServer(); Object.assign(r, { url }); r.meAnswer = async () => ({ id: 8, user_name: 'fran', token: 'tok-8' }); return r; } };
    const e2 = await link(a.env, 'http://remote.test', { token: 'tok-8' }, null, a.current).catch((x: unknown) => x);
    expect(status(e2)).toBe(409);
    expect((await q.state(a.store)).get('self_remote')).toBe('7');
    expect(await a.tokens.read()).toBe('tok-7');
  });

  it('a disconnect keeps the link as was_* (the outbox goes on recording) and forgets the token', async () => {
    const a = setup();
    await link(a.env, 'http://remote.test', { token: 'tok-7' }, null, a.current);
    await unlink(a.store, a.tokens);
    const st = await q.state(a.store);
    expect([st.get('url'), st.get('was_url'), st.get('was_self')]).toEqual([undefined, 'http://remote.test', '7']);
    expect(a.store.recordOutbox).toBe(true);
    expect(await a.tokens.read()).toBeNull();
  });
});
