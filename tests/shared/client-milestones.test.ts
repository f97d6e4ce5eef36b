// The typed client's milestone calls (shared/client.ts) against the real app: the renderer's
// Milestones board uses only these, over the action routes' JSON twins (§8.7, §8.14).
import { describe, expect, it } from 'vitest';
import { BivouacClient } from '../../shared/client.ts';
import { freshAccount, type Harness } from '../support/helpers.ts';

let h: Harness;
let pid: number;
let fran: number;
freshAccount((a) => { ({ h, pid } = a); fran = a.f.person.fran; });

/** A client whose fetch goes through the app (Fran's credentials). */
const client = () => new BivouacClient({
  base64: (s) => Buffer.from(s, 'utf8').toString('base64'),
  credentials: { user: 'fran', password: 'fran-pass-2' },
  fetch: async (url, init) => {
    const r = await h.app.inject({ method: init.method as 'GET', url, payload: init.body, headers: { host: '127.0.0.1', ...init.headers } });
    return { status: r.statusCode, headers: { get: (n: string) => { const v = r.headers[n.toLowerCase()]; return v === undefined ? null : String(v); } }, text: async () => r.body };
  },
});

describe('client: milestones', () => {
  it('creates, updates, completes, uncompletes and deletes a milestone; lists and posts that named it name none', async () => {
    const c = client();
    const m = await c.createMilestone(pid, { title: 'Summit push', deadline: '2099-06-01', responsible_party: String(fran) });
    expect(m).toMatchObject({ title: 'Summit push', deadline: '2099-06-01', completed: false, responsible_party_id: fran, responsible_party_type: 'Person' });
    const list = await c.createTodoList(pid, { name: 'Gear', milestone_id: m.id });
    const post = await c.createPost(pid, { title: 'Plan', body: 'x', milestone_id: m.id });
    expect([list.milestone_id, post.milestone_id]).toEqual([m.id, m.id]);

    const u = await c.updateMilestone(m.id, { title: 'Summit day', deadline: '2099-06-03', responsible_party: '' });
    expect(u).toMatchObject({ title: 'Summit day', deadline: '2099-06-03' });
    expect(u.responsible_party_id).toBeUndefined();
    expect((await c.completeMilestone(m.id)).completed).toBe(true);
    expect((await c.milestones(pid, 'completed')).map((x) => x.id)).toContain(m.id);
    expect((await c.uncompleteMilestone(m.id)).completed).toBe(false);
    await c.createComment('milestones', m.id, { body: 'Weather looks good' });
    expect((await c.allComments('milestones', m.id)).map((x) => x.body)).toEqual(['Weather looks good']);

    const gone = await c.deleteMilestone(m.id);
    expect(gone.id).toBe(m.id);
    expect((await c.milestones(pid)).map((x) => x.id)).not.toContain(m.id);
    expect((await c.todoList(list.id)).milestone_id).toBeNull();
    expect((await c.post(post.id)).milestone_id).toBe(0);
  });

  it('a refused create says why (422 with the server messages)', async () => {
    await expect(client().createMilestone(pid, { title: '', deadline: 'soon' })).rejects.toMatchObject({ status: 422 });
  });

  it('moves the later open milestones with the due date when asked (move-upcoming-milestones, off weekends)', async () => {
    const c = client();
    const a = await c.createMilestone(pid, { title: 'A', deadline: '2099-06-01' });
    const b = await c.createMilestone(pid, { title: 'B', deadline: '2099-06-10' }); // a Wednesday
    const done = await c.createMilestone(pid, { title: 'Done', deadline: '2099-06-20' });
    await c.completeMilestone(done.id);
    const deadline = async (id: number) => (await c.milestones(pid)).find((x) => x.id === id)!.deadline;
    await c.updateMilestone(a.id, { deadline: '2099-06-02' });
    expect(await deadline(b.id)).toBe('2099-06-10');
    await c.updateMilestone(a.id, { deadline: '2099-06-05' }, { upcoming: true });
    expect(await deadline(b.id)).toBe('2099-06-13'); // + 3 days: a Saturday
    expect(await deadline(done.id)).toBe('2099-06-20');
    await c.updateMilestone(a.id, { deadline: '2099-06-06' }, { upcoming: true, offWeekends: true });
    expect(await deadline(b.id)).toBe('2099-06-15'); // Sunday 14th, moved on to Monday
    expect(await deadline(a.id)).toBe('2099-06-06');
  });
});
