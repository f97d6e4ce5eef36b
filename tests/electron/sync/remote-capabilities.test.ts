// Reading the team server's `admin` capability (D338): only `true` with idempotent writes counts; anything a
// remote says otherwise (absent, not a boolean, without idempotency) leaves a replica's administration refused.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Remote } from '../../../electron/sync/remote.ts';

describe('the admin capability', () => {
  let server: Server | null = null;
  afterEach(async () => { if (server) await new Promise((r) => server!.close(r)); server = null; });

  const capsOf = async (doc: unknown) => {
    server = createServer((_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify(doc)); });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const caps = await new Remote({ url, auth: { token: 't' } }).capabilities();
    await new Promise((r) => server!.close(r));
    server = null;
    return caps.admin === true;
  };

  it('is taken only as true with idempotency, from protocol 1', async () => {
    expect(await capsOf({ protocol: 1, version: 3, feed: true, idempotency: true, admin: true })).toBe(true);
    expect(await capsOf({ protocol: 1, feed: true, idempotency: false, admin: true })).toBe(false);
    expect(await capsOf({ protocol: 1, feed: true, idempotency: true, admin: 'true' })).toBe(false);
    expect(await capsOf({ protocol: 1, feed: true, idempotency: true })).toBe(false);
    expect(await capsOf({ protocol: 2, feed: true, idempotency: true, admin: true })).toBe(false);
  });
});
