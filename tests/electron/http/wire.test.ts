// The bytes on the wire, over real sockets (node:net): errors the HTTP framework raises itself answer the
// contract's error document and reach the client before the connection closes (issue #6).

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../electron/http/app.ts';
import { SqliteStore } from '../../../electron/store/sqlite.ts';
import { importSeed } from '../../../electron/service/account.ts';
import { parseXml } from '../../../shared/codec/in.ts';
import { FIXTURE } from '../../support/helpers.ts';

let store: SqliteStore;
let app: Awaited<ReturnType<typeof buildApp>>;
let port = 0;
let H = '';

beforeAll(async () => {
  store = new SqliteStore(':memory:');
  await importSeed(store, FIXTURE);
  app = await buildApp({ store });
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
  H = `Host: 127.0.0.1:${port}\r\nAuthorization: Basic ${Buffer.from('fran:fran-pass-2').toString('base64')}\r\n`;
});
afterAll(async () => { await app.close(); await store.close(); });

export interface Wire {
  /** Everything the client read, as latin1 text. */
  raw: string;
  status: number;
  /** Header lines as sent: [name, value], names with their case. */
  headers: [string, string][];
  body: string;
  /** The socket error the client saw (ECONNRESET, EPIPE), if any. */
  error?: string;
}

/**
 * Send bytes like a simple client does: write the whole request first (waiting for the socket to take
 * it), read the answer only then, until the server closes. A server that closes while unread request
 * bytes remain makes the kernel reset the connection, and such a client loses the answer.
 */
export function exchange(p: number, parts: readonly (string | Buffer)[]): Promise<Wire> {
  return new Promise((resolve) => {
    const s = connect(p, '127.0.0.1');
    const got: Buffer[] = [];
    let error: string | undefined;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const raw = Buffer.concat(got).toString('latin1');
      const end = raw.indexOf('\r\n\r\n');
      const head = end < 0 ? raw : raw.slice(0, end);
      const [line, ...lines] = head.split('\r\n');
      const headers = lines.map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()] as [string, string]);
      const m = /^HTTP\/1\.1 (\d{3}) /.exec(line ?? '');
      resolve({ raw, status: m ? Number(m[1]) : 0, headers, body: end < 0 ? '' : Buffer.from(raw.slice(end + 4), 'latin1').toString('utf8'), error });
      s.destroy();
    };
    /** A whole answer has arrived (headers and Content-Length bytes of body): no need to wait for a close. */
    const complete = (): boolean => {
      const buf = Buffer.concat(got);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return false;
      const len = /\r\ncontent-length:\s*(\d+)/i.exec(buf.subarray(0, end).toString('latin1'));
      return len !== null && buf.length - end - 4 >= Number(len[1]);
    };
    s.on('error', (e) => { error = (e as NodeJS.ErrnoException).code ?? String(e); });
    s.on('close', finish);
    void (async () => {
      for (const part of parts) {
        if (s.destroyed) return;
        if (!s.write(part)) await new Promise((r) => { s.once('drain', r); s.once('close', r); });
      }
      if (s.destroyed) return;
      s.on('data', (d: Buffer) => { got.push(d); if (complete()) finish(); });
    })();
  });
}

const header = (w: Wire, name: string): string | undefined => w.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];

/** The answer is complete (status line, headers, a body of Content-Length bytes) and is an <errors> document. */
function expectErrorDocument(w: Wire, status: number, json = false): void {
  expect(w.status).toBe(status);
  expect(header(w, 'status')).toBe(String(status));
  expect(Buffer.byteLength(w.body)).toBe(Number(header(w, 'content-length')));
  if (json) {
    expect(header(w, 'content-type')).toBe('application/json; charset=utf-8');
    expect((JSON.parse(w.body) as { errors: string[] }).errors.length).toBeGreaterThan(0);
  } else {
    expect(header(w, 'content-type')).toBe('application/xml; charset=utf-8');
    expect(w.body.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
    const doc = parseXml(w.body)!;
    expect(doc.name).toBe('errors');
    expect(doc.children.length).toBeGreaterThan(0);
    expect(doc.children.every((c) => c.name === 'error' && c.text !== '')).toBe(true);
  }
}

const pieces = (b: Buffer, size = 64 * 1024): Buffer[] => {
  const out: Buffer[] = [];
  for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
  return out;
};

describe('errors the HTTP framework raises answer the contract’s error document, read in full by the client', () => {
  it('bad percent-encoding in the path: 400 <errors> (JSON on a .json path)', async () => {
    expectErrorDocument(await exchange(port, [`GET /projects/%zz.xml HTTP/1.1\r\n${H}\r\n`]), 400);
    expectErrorDocument(await exchange(port, [`GET /projects/%E0%A4%A.json HTTP/1.1\r\n${H}\r\n`]), 400, true);
  });

  it('an over-long path parameter: 404 <errors>', async () => {
    expectErrorDocument(await exchange(port, [`GET /projects/${'1'.repeat(300)}.xml HTTP/1.1\r\n${H}\r\n`]), 404);
  });

  it('an over-long header: 431 <errors>, even when the client sends far more before it reads', async () => {
    expectErrorDocument(await exchange(port, [`GET /projects.xml HTTP/1.1\r\n${H}X-Long: ${'a'.repeat(20_000)}\r\n\r\n`]), 431);
    const w = await exchange(port, [`GET /projects.xml HTTP/1.1\r\n${H}`, ...pieces(Buffer.from(`X-Long: ${'a'.repeat(400_000)}\r\n\r\n`))]);
    expect(w.error).toBeUndefined();
    expectErrorDocument(w, 431);
    expectErrorDocument(await exchange(port, [`GET /projects.json HTTP/1.1\r\n${H}X-Long: ${'a'.repeat(20_000)}\r\n\r\n`]), 431, true);
  });

  it('a method the parser does not know, a garbage request line, a bad Content-Length: 4xx <errors>', async () => {
    const unknown = await exchange(port, [`FROB /projects.xml HTTP/1.1\r\n${H}\r\n`]);
    expect([400, 405]).toContain(unknown.status);
    expectErrorDocument(unknown, unknown.status);
    expectErrorDocument(await exchange(port, ['HELLO THERE\r\n\r\n']), 400);
    expectErrorDocument(await exchange(port, [`PUT /posts/1.xml HTTP/1.1\r\n${H}Content-Length: abc\r\n\r\n`]), 400);
    // CONNECT never reaches the router (Node hands it to a 'connect' listener): 405 <errors>, not a silent close.
    const c = await exchange(port, [`CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`]);
    expectErrorDocument(c, 405);
    // A method Node knows but no route takes: the route layer's 405 or 404, as XML.
    expectErrorDocument(await exchange(port, [`PROPFIND /projects.xml HTTP/1.1\r\n${H}\r\n`]), 404);
  });

  it('oversized bodies (Content-Length and chunked) get a 413 the client reads after sending everything', async () => {
    const big = Buffer.alloc(8 * 1024 * 1024, 'x');
    const cl = await exchange(port, [`PUT /posts/1.xml HTTP/1.1\r\n${H}Content-Length: ${big.length}\r\n\r\n`, ...pieces(big)]);
    expect(cl.error).toBeUndefined();
    expectErrorDocument(cl, 413);
    const chunks = pieces(big).flatMap((p) => [Buffer.from(`${p.length.toString(16)}\r\n`), p, Buffer.from('\r\n')]);
    const ch = await exchange(port, [`PUT /posts/1.xml HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n`, ...chunks, '0\r\n\r\n']);
    expect(ch.error).toBeUndefined();
    expectErrorDocument(ch, 413);
    const js = await exchange(port, [`PUT /posts/1.json HTTP/1.1\r\n${H}Content-Length: ${big.length}\r\n\r\n`, ...pieces(big)]);
    expect(js.error).toBeUndefined();
    expectErrorDocument(js, 413, true);
  });

  it('a Content-Type the framework cannot parse is ignored, as every Content-Type is (§2.4)', async () => {
    const alpha = (await store.get<{ id: number }>("SELECT id FROM projects WHERE name = 'Alpha Ascent'"))!.id;
    const body = '<post><title>Any type</title><body>b</body></post>';
    for (const ct of [';;;', 'text/', 'application/xml; charset', '"x"', 'application/xml']) {
      const w = await exchange(port, [`POST /projects/${alpha}/posts.xml HTTP/1.1\r\n${H}Content-Type: ${ct}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`, body]);
      expect([ct, w.status]).toEqual([ct, 201]);
    }
  });
});

describe('header names carry the capitalisation the original service sent (a 2009 PHP client matches `Location:` and `Status:`)', () => {
  /** Every header line of the answer starts with a conventionally capitalised name. */
  function expectCanonical(w: Wire): void {
    expect(w.headers.length).toBeGreaterThan(2);
    for (const [name] of w.headers) expect([name, /^(WWW|[A-Z][a-z0-9]*)(-([A-Z][a-z0-9]*|ID|MD5|XSS))*$|^ETag$/.test(name)]).toEqual([name, true]);
  }
  const line = (w: Wire, text: string) => expect(w.raw).toContain(`\r\n${text}\r\n`);

  it('a create: 201 with `Location:` and `Status:` spelled as the PHP client expects', async () => {
    const alpha = (await store.get<{ id: number }>("SELECT id FROM projects WHERE name = 'Alpha Ascent'"))!.id;
    const body = '<post><title>Header case</title><body>b</body></post>';
    const w = await exchange(port, [`POST /projects/${alpha}/posts.xml HTTP/1.1\r\n${H}Content-Length: ${body.length}\r\n\r\n`, body]);
    expect(w.status).toBe(201);
    expect(w.raw).toMatch(/\r\nLocation: \/posts\/\d+\.xml\r\n/);
    line(w, 'Status: 201');
    line(w, 'Content-Type: application/xml; charset=utf-8');
    expect(w.raw).toMatch(/\r\nContent-Length: \d+\r\n/);
    expectCanonical(w);
  });

  it('an error: 401 with `WWW-Authenticate:` and `Status:`; a 405 with `Allow:`', async () => {
    const w = await exchange(port, [`GET /projects.xml HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`]);
    expect(w.status).toBe(401);
    line(w, 'WWW-Authenticate: Basic realm="Bivouac"');
    line(w, 'Status: 401');
    expectCanonical(w);
    const m = await exchange(port, [`PATCH /projects.xml HTTP/1.1\r\n${H}\r\n`]);
    expect(m.status).toBe(405);
    expect(m.raw).toMatch(/\r\nAllow: [A-Z, ]+\r\n/);
    expectCanonical(m);
  });

  it('lists, XML and JSON (with `X-Count:`), from the renderer and from the response cache', async () => {
    for (let i = 0; i < 2; i++) { // the second answer comes from the cache of rendered responses
      const w = await exchange(port, [`GET /projects.xml HTTP/1.1\r\n${H}\r\n`]);
      expect(w.status).toBe(200);
      line(w, 'Status: 200');
      line(w, 'Content-Type: application/xml; charset=utf-8');
      expectCanonical(w);
    }
    const post = (await store.get<{ id: number }>('SELECT id FROM posts ORDER BY id LIMIT 1'))!.id;
    const j = await exchange(port, [`GET /posts/${post}/comments.json HTTP/1.1\r\n${H}\r\n`]);
    expect(j.status).toBe(200);
    expect(j.raw).toMatch(/\r\nX-Count: \d+\r\n/);
    expectCanonical(j);
    // A page of time entries: its three headers are in the table of known names (no regular expression).
    const project = (await store.get<{ id: number }>('SELECT id FROM projects ORDER BY id LIMIT 1'))!.id;
    const t = await exchange(port, [`GET /projects/${project}/time_entries.xml HTTP/1.1\r\n${H}\r\n`]);
    expect(t.status).toBe(200);
    for (const name of ['X-Records', 'X-Pages', 'X-Page']) expect(t.raw).toMatch(new RegExp(`\\r\\n${name}: \\d+\\r\\n`));
    expectCanonical(t);
  });

  it('the UI’s files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bivouac-ui-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>B</title>');
    writeFileSync(join(dir, 'assets', 'app.js'), 'void 0;');
    const ui = await buildApp({ store, uiDir: dir });
    await ui.listen({ host: '127.0.0.1', port: 0 });
    const p = (ui.server.address() as AddressInfo).port;
    try {
      for (const path of ['/', '/assets/app.js']) {
        const w = await exchange(p, [`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${p}\r\n\r\n`]);
        expect([path, w.status]).toEqual([path, 200]);
        for (const name of ['Content-Type', 'Content-Length', 'Cache-Control', 'Content-Security-Policy', 'X-Frame-Options', 'X-Content-Type-Options', 'Status']) {
          expect([path, w.raw.includes(`\r\n${name}: `)]).toEqual([path, true]);
        }
        expectCanonical(w);
      }
    } finally {
      await ui.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('long answers and a close, over sockets (kept from the thin path’s parity test, D334)', () => {
  it('long answers with multi-byte characters: Content-Length counts UTF-8 bytes, XML and JSON (D200)', async () => {
    const alpha = (await store.get<{ id: number }>("SELECT id FROM projects WHERE name = 'Alpha Ascent'"))!.id;
    const listXml = '<todo-list><name>Long answers</name></todo-list>';
    const created = await exchange(port, [`POST /projects/${alpha}/todo_lists.xml HTTP/1.1\r\n${H}Content-Length: ${listXml.length}\r\n\r\n`, listXml]);
    expect(created.status).toBe(201);
    const list = Number(/\/todo_lists\/(\d+)$/.exec(header(created, 'location')!)![1]);
    const text = 'Zürich café ✓ 😀 '.repeat(20);
    for (let k = 0; k < 30; k++) {
      const body = Buffer.from(`<todo-item><content>${text}${k}</content></todo-item>`, 'utf8');
      const w = await exchange(port, [`POST /todo_lists/${list}/todo_items.xml HTTP/1.1\r\n${H}Content-Length: ${body.length}\r\n\r\n`, body]);
      expect(w.status).toBe(201);
    }
    for (const path of [`/todo_lists/${list}/todo_items.xml`, `/todo_lists/${list}/todo_items.json`]) {
      const w = await exchange(port, [`GET ${path} HTTP/1.1\r\n${H}\r\n`]);
      expect(w.status).toBe(200);
      const bytes = Buffer.from(w.raw.slice(w.raw.indexOf('\r\n\r\n') + 4), 'latin1');
      expect(bytes.length).toBeGreaterThan(8192);
      expect(Number(header(w, 'content-length'))).toBe(bytes.length);
      expect(w.body).toContain(`${text}29`);
      expect(w.body.length).toBeLessThan(bytes.length); // multi-byte characters went out as UTF-8
    }
  });

  it("while the app closes, a GET pipelined behind a write in flight gets Fastify's 503 and Connection: close", async () => {
    const closing = await buildApp({ store });
    // Events, not sleeps: the POST reached its handler (after authentication), close began (Fastify answers
    // 503 from here on), the pipelined GET arrived.
    let posted!: () => void, began!: () => void, got!: () => void;
    const inHandler = new Promise<void>((r) => { posted = r; });
    const closeBegan = new Promise<void>((r) => { began = r; });
    const getArrived = new Promise<void>((r) => { got = r; });
    closing.addHook('preHandler', async (req) => { if (req.method === 'POST') posted(); });
    closing.addHook('preClose', (done) => { began(); done(); });
    await closing.listen({ host: '127.0.0.1', port: 0 });
    closing.server.on('request', (req: { method?: string }) => { if (req.method === 'GET') got(); });
    const p = (closing.server.address() as AddressInfo).port;
    const head = `Host: 127.0.0.1:${p}\r\nAuthorization: Basic ${Buffer.from('ada:ada-pass-1').toString('base64')}\r\n`;
    // A write held in the store's write queue keeps the POST (queued behind it) in flight while close() begins.
    let release = (): void => undefined;
    const holding = store.write(() => new Promise<void>((r) => { release = r; }));
    const s = connect(p, '127.0.0.1');
    const got2: Buffer[] = [];
    s.on('data', (d: Buffer) => got2.push(d));
    const ended = new Promise<void>((resolve) => s.on('close', () => resolve()));
    const body = '<project><name>Closing</name></project>';
    s.write(`POST /projects.xml HTTP/1.1\r\n${head}Content-Type: application/xml\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    await inHandler;
    const closed = closing.close();
    await closeBegan;
    s.write(`GET /me.xml HTTP/1.1\r\n${head}\r\n`);
    await getArrived;
    release();
    await holding;
    await ended;
    await closed;
    const answers = Buffer.concat(got2).toString('latin1');
    expect(answers).toMatch(/^HTTP\/1\.1 201 Created\r\n/);
    const second = answers.slice(answers.indexOf('HTTP/1.1', 1));
    expect(second).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(second).toContain('\r\nConnection: close\r\n');
  });
});
