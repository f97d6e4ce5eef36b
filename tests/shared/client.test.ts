// The API client's record and input interfaces must match the registry exactly (no drift).
import { describe, expect, it } from 'vitest';
import { RESOURCES, column, postSummaryFields, writableFields, type ResourceKey } from '../../shared/registry.ts';
import { ApiError, BivouacClient, INPUT_KEYS, POST_SUMMARY_KEYS, RECORD_KEYS, type HttpInit } from '../../shared/client.ts';

const sorted = (a: readonly string[]) => [...a].sort();

describe('client types vs registry', () => {
  for (const key of Object.keys(RESOURCES) as ResourceKey[]) {
    it(`${key}: record interface keys are the registry fields`, () => {
      expect(sorted(RECORD_KEYS[key])).toEqual(sorted(RESOURCES[key].fields.map((f) => column(f.name))));
    });
  }
  it('post summary keys', () => {
    expect(sorted(POST_SUMMARY_KEYS)).toEqual(sorted(postSummaryFields.map((f) => column(f.name))));
  });
  for (const key of Object.keys(INPUT_KEYS) as (keyof typeof INPUT_KEYS)[]) {
    it(`${key}: input keys are the registry's writable inputs`, () => {
      const names = writableFields(RESOURCES[key], 'create').map((f) => column(f.input ?? f.name));
      expect(sorted(INPUT_KEYS[key])).toEqual(sorted(names));
    });
  }
});

describe('client transport', () => {
  const fake = (status: number, body: string, headers: Record<string, string> = {}) => {
    const calls: { url: string; init: HttpInit }[] = [];
    const client = new BivouacClient({
      baseUrl: 'http://h:1/', base64: (s) => Buffer.from(s, 'utf8').toString('base64'),
      credentials: { user: 'ada', password: 'pässword' },
      fetch: async (url, init) => {
        calls.push({ url, init });
        return { status, headers: { get: (n: string) => headers[n.toLowerCase()] ?? null }, text: async () => body };
      },
    });
    return { client, calls };
  };

  it('sends Basic auth (UTF-8), JSON routes and wrapped JSON bodies', async () => {
    const { client, calls } = fake(201, '{"id":5,"content":"x"}');
    const item = await client.createTodoItem(3, { content: 'x', responsible_party: 'c12', due_at: undefined });
    expect(item.id).toBe(5);
    expect(calls[0].url).toBe('http://h:1/todo_lists/3/todo_items.json');
    expect(calls[0].init.method).toBe('POST');
    expect(calls[0].init.headers.Authorization).toBe(`Basic ${Buffer.from('ada:pässword').toString('base64')}`);
    expect(JSON.parse(calls[0].init.body!)).toEqual({ todo_item: { content: 'x', responsible_party: 'c12' } });
  });

  it('token credentials use token:X; reorder sends an array of {id}', async () => {
    const { client, calls } = fake(200, '[]');
    client.setCredentials({ token: 'abc' });
    await client.reorderTodoItems(9, [3, 1, 2]);
    expect(calls[0].init.headers.Authorization).toBe(`Basic ${Buffer.from('abc:X').toString('base64')}`);
    expect(JSON.parse(calls[0].init.body!)).toEqual([{ id: 3 }, { id: 1 }, { id: 2 }]);
  });

  it('todoBoard: one request for a project\'s lists with their items (include=items), filter kept', async () => {
    const body = '[{"id":1,"name":"A","todo_items":[{"id":7,"content":"x"}]},{"id":2,"name":"B","todo_items":[]}]';
    const { client, calls } = fake(200, body);
    const lists = await client.todoBoard(4);
    expect(calls).toHaveLength(1);
    expect(calls[0].url).toBe('http://h:1/projects/4/todo_lists.json?include=items');
    expect(calls[0].init.method).toBe('GET');
    expect(lists.map((l) => [l.id, l.todo_items?.map((i) => i.id)])).toEqual([[1, [7]], [2, []]]);
    await client.todoBoard(4, 'pending');
    expect(calls[1].url).toBe('http://h:1/projects/4/todo_lists.json?filter=pending&include=items');
  });

  it('report query: compact dates, unset filters dropped', async () => {
    const { client, calls } = fake(200, '[]');
    await client.timeReport({ from: '2024-03-01', to: '2024-03-31', subject_id: 4, filter_project_id: undefined });
    expect(calls[0].url).toBe('http://h:1/time_entries/report.json?from=20240301&to=20240331&subject_id=4');
  });

  it('throws ApiError with the server messages on non-2xx', async () => {
    const { client } = fake(422, '{"errors":["Content can\'t be blank"]}');
    const e = await client.createTodoItem(1, { content: '' }).catch((x) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(e.status).toBe(422);
    expect(e.messages).toEqual(["Content can't be blank"]);
  });

  it('empty 200 body (delete) resolves; network failure is status 0', async () => {
    await expect(fake(200, '').client.deletePost(1)).resolves.toBeUndefined();
    const c = new BivouacClient({ fetch: async () => { throw new Error('refused'); }, base64: (s) => s });
    const e = await c.me().catch((x) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect(e.status).toBe(0);
  });

  it('comment pages read X-Count and X-Continued-At', async () => {
    const { client } = fake(200, '[]', { 'x-count': '120', 'x-continued-at': '/posts/1/comments.xml?threshold=7' });
    expect(await client.comments('posts', 1)).toEqual({ comments: [], count: 120, continuedAt: '/posts/1/comments.xml?threshold=7' });
  });
  it('sync routes: paths, methods, JSON bodies; a refused connect carries the route\'s message', async () => {
    const { client, calls } = fake(200, '{"state":"idle","pending":0}');
    await client.syncStatus();
    await client.syncRun(true);
    await client.syncRun();
    await client.resolveConflict(3, 'theirs');
    await client.connectRemote({ url: 'http://t:1', user: 'ada', password: 'pw' });
    await client.disconnectRemote();
    await client.syncConflicts();
    await client.syncRejected();
    await client.setupConnect({ url: 'http://t:1', user: 'ada', password: 'pw' });
    expect(JSON.parse(calls[8].init.body!)).toEqual({ remote: { url: 'http://t:1', user: 'ada', password: 'pw' } });
    expect(calls.slice(0, 8).map((c) => `${c.init.method} ${c.url.replace('http://h:1', '')}`)).toEqual([
      'GET /sync/status', 'POST /sync/run?wait=true', 'POST /sync/run', 'POST /sync/conflicts/3/resolve',
      'PUT /sync/remote', 'DELETE /sync/remote', 'GET /sync/conflicts', 'GET /sync/rejected']);
    expect(`${calls[8].init.method} ${calls[8].url}`).toBe('POST http://h:1/setup.json');
    expect(JSON.parse(calls[3].init.body!)).toEqual({ keep: 'theirs' });
    expect(JSON.parse(calls[4].init.body!)).toEqual({ url: 'http://t:1', user: 'ada', password: 'pw' });
    const refused = await fake(422, '{"errors":["The remote refused these credentials"]}').client
      .connectRemote({ url: 'http://t:1', token: 'x' }).catch((x) => x);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused.status).toBe(422);
    expect(refused.messages).toEqual(['The remote refused these credentials']);
  });

  it('administration routes (E2–E6): paths, methods, wrapped bodies; the invitation read flat or wrapped', async () => {
    const { client, calls } = fake(201, '{"person_id":9,"token":"t0k","expires_at":"2026-12-05T03:10:00Z"}');
    await client.createPerson({ first_name: 'Nia', user_name: 'nia', company_id: 1, password: undefined });
    await client.updatePerson(9, { password: 'a long passphrase' });
    await client.deactivatePerson(9);
    await client.addMember(4, 9);
    await client.removeMember(4, 9);
    await client.createCompany({ name: 'Client Co', can_see_private: false });
    await client.createProjectFor({ name: 'Alps', company_id: 1 });
    expect((await client.invite(9)).token).toBe('t0k');
    await client.acceptInvitation('t0k', 'nia', 'a long passphrase');
    await client.updateCompany(3, { name: 'Valley Guides' });
    await client.deactivatedPeople();
    expect(calls.map((c) => `${c.init.method} ${c.url.replace('http://h:1', '')}`)).toEqual([
      'POST /people.json', 'PUT /people/9.json', 'DELETE /people/9.json', 'POST /projects/4/people.json',
      'DELETE /projects/4/people/9.json', 'POST /companies.json', 'POST /projects.json', 'POST /people/9/invitation.json',
      'POST /invitations/accept.json', 'PUT /companies/3.json', 'GET /people/deactivated.json',
    ]);
    expect(JSON.parse(calls[9].init.body!)).toEqual({ company: { name: 'Valley Guides' } });
    expect(JSON.parse(calls[0].init.body!)).toEqual({ person: { first_name: 'Nia', user_name: 'nia', company_id: 1 } });
    expect(JSON.parse(calls[3].init.body!)).toEqual({ person: { id: 9 } });
    expect(JSON.parse(calls[8].init.body!)).toEqual({ invitation: { token: 't0k', user_name: 'nia', password: 'a long passphrase' } });
    const wrapped = fake(201, '{"invitation":{"person_id":9,"token":"w","expires_at":"x"}}');
    expect((await wrapped.client.invite(9)).token).toBe('w');
  });
});
