// The live change stream (docs/changes-stream.md): Server-Sent Events, authenticated like the API,
// naming what changed and where, limited to what the caller may see.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIXTURE, fx, harness, type Harness } from '../../../support/helpers.ts';
import { MAX_STREAMS } from '../../../../electron/http/plugins/changes.ts';

let h: Harness;
let base = '';
beforeEach(async () => {
  h = await harness();
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const a = h.app.server.address();
  base = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
});
afterEach(async () => { await h.close(); });

const auth = (who: string) => {
  const p = FIXTURE.people.find((x) => x.key === who)!;
  return `Basic ${Buffer.from(`${p['user-name']}:${p.password}`).toString('base64')}`;
};

interface Ev { event: string; data: unknown; id?: string }

/** Open a stream; `next()` resolves with the next event (or null after `ms`). */
async function open(who: string, ctl: AbortController) {
  const res = await fetch(`${base}/changes/stream`, { headers: { Authorization: auth(who) }, signal: ctl.signal });
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = '';
  const queue: Ev[] = [];
  const pump = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buf += dec.decode(value, { stream: true });
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const ev: Ev = { event: 'message', data: null };
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) ev.event = line.slice(7);
            else if (line.startsWith('data: ')) ev.data = JSON.parse(line.slice(6));
            else if (line.startsWith('id: ')) ev.id = line.slice(4);
          }
          if (!block.startsWith(':')) queue.push(ev);
        }
      }
    } catch { /* aborted */ }
  })();
  const next = async (ms = 3000): Promise<Ev | null> => {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      if (queue.length) return queue.shift()!;
      await new Promise((r) => setTimeout(r, 20));
    }
    return null;
  };
  return { res, next, pump };
}

describe('GET /changes/stream', () => {
  it('refuses a request without credentials (401), like the API', async () => {
    const r = await fetch(`${base}/changes/stream`);
    expect(r.status).toBe(401);
    await r.text();
  });

  it('sends which resources changed in which visible projects; a client sees nothing of a project it is not on', async () => {
    const f = await fx(h);
    const clientSees = new Set(((await h.req('cleo', 'GET', '/projects.json')).json() as { id: number }[]).map((p) => p.id));
    const hidden = Object.values(f.project).find((id) => !clientSees.has(id))!;
    const shared = Object.values(f.project).find((id) => clientSees.has(id))!;
    expect(hidden).toBeDefined();
    expect(shared).toBeDefined();

    const ca = new AbortController(), cc = new AbortController();
    const ada = await open('ada', ca);
    const cleo = await open('cleo', cc);
    expect(ada.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect((await ada.next())?.event).toBe('ready');
    expect((await cleo.next())?.event).toBe('ready');

    // a change in a project the client is not on
    const r1 = await h.req('ada', 'POST', `/projects/${hidden}/todo_lists.json`, JSON.stringify({ todo_list: { name: 'Secret gear' } }), { 'content-type': 'application/json', accept: 'application/json' });
    expect(r1.status).toBe(201);
    const e1 = await ada.next();
    expect(e1?.event).toBe('change');
    // The project's own record changed too (last-changed-on): the feed logs it with the list (D60).
    expect(e1?.data).toMatchObject({ projects: [hidden] });
    expect((e1?.data as { resources: string[] }).resources).toContain('todo_lists');
    expect(await cleo.next(1200)).toBeNull();

    // a new message in a project both are on
    const r2 = await h.req('ada', 'POST', `/projects/${shared}/posts.json`, JSON.stringify({ post: { title: 'Weather window', body: 'Thursday.' } }), { 'content-type': 'application/json', accept: 'application/json' });
    expect(r2.status).toBe(201);
    const e2 = await cleo.next();
    expect(e2?.event).toBe('change');
    expect((e2?.data as { projects: number[] }).projects).toEqual([shared]);
    expect((e2?.data as { resources: string[] }).resources).toContain('posts');
    expect(Number(e2?.id)).toBeGreaterThan(0);
    ca.abort(); cc.abort();
  });

  it('one person holds at most MAX_STREAMS open streams (429 in words, Retry-After); others are not affected; a closed one frees its place', async () => {
    const ctls: AbortController[] = [];
    try {
      for (let k = 0; k < MAX_STREAMS; k++) {
        const ctl = new AbortController();
        ctls.push(ctl);
        const s = await open('ada', ctl);
        expect(s.res.status).toBe(200);
        expect((await s.next())?.event).toBe('ready');
      }
      const over = await fetch(`${base}/changes/stream`, { headers: { Authorization: auth('ada') } });
      expect(over.status).toBe(429);
      expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await over.text()).toMatch(/<error>.*streams.*<\/error>/);
      // Another person is not affected.
      const cc = new AbortController();
      const c = await open('cleo', cc);
      expect(c.res.status).toBe(200);
      cc.abort();
      // Closing one frees its place (once the server saw the close).
      ctls.pop()!.abort();
      let again: Response | null = null;
      for (let k = 0; k < 100 && (!again || again.status === 429); k++) {
        if (again) await new Promise((r) => setTimeout(r, 20));
        const ctl = new AbortController();
        again = await fetch(`${base}/changes/stream`, { headers: { Authorization: auth('ada') }, signal: ctl.signal });
        if (again.status === 200) ctls.push(ctl);
      }
      expect(again?.status).toBe(200);
    } finally {
      for (const c of ctls) c.abort();
    }
  });

  it('open streams do not keep the server from closing', async () => {
    const ctl = new AbortController();
    const s = await open('ada', ctl);
    expect((await s.next())?.event).toBe('ready');
    await h.app.close(); // would hang (test timeout) if the stream kept the server open
    expect(await s.next(500)).toBeNull();
    ctl.abort();
  });
});
