import { describe, expect, it } from 'vitest';
import { blockedTime, matchAccount, matchCategories, type LocalSide, type RemoteSide } from '../../../shared/sync/adopt.ts';

const person = (id: number, user: string, mail: string, first = user, last = 'X', administrator = 0) =>
  ({ id, user_name: user, email_address: mail, first_name: first, last_name: last, administrator });

const remote = (o: Partial<RemoteSide> = {}): RemoteSide => ({
  me: person(100, 'ada', 'ada@r.example'),
  companies: [{ id: 900, name: 'Summit' }, { id: 901, name: 'Valley' }],
  people: [person(100, 'ada', 'ada@r.example'), person(101, 'fran', 'fran@r.example'), person(102, 'finn', 'finn@r.example', 'Finn', 'Same'), person(103, 'cleo', 'c@r.example', 'Cleo', 'Twin'), person(104, 'carl', 'd@r.example', 'Cleo', 'Twin')],
  projects: [{ id: 500, name: 'Alpha' }, { id: 501, name: 'Twice' }, { id: 502, name: 'Twice' }],
  canCreateProjects: false,
  ...o,
});
const local = (o: Partial<LocalSide> = {}): LocalSide => ({
  companies: [{ id: 1, name: 'summit ', firm: 1 }, { id: 2, name: 'Elsewhere', firm: 0 }],
  people: [person(1, 'ada', 'me@home'), person(2, 'franny', 'FRAN@r.example'), person(3, 'x', 'x@x', 'Finn', 'Same'), person(4, 'y', 'y@y', 'Cleo', 'Twin'), person(5, 'zed', 'z@z')],
  projects: [{ id: 10, name: 'Alpha' }],
  caller: null,
  ...o,
});

describe('matching local work to a remote (D150)', () => {
  it('me by user name; others by e-mail, user name, or a full name unique on both sides; companies by name', () => {
    const m = matchAccount(local(), remote());
    expect(m.me).toBe(1);
    expect([...m.people]).toEqual([[1, 100], [2, 101], [3, 102]]); // Cleo Twin is two people there: no match
    expect([...m.companies]).toEqual([[1, 900]]);
    expect(m.blocks).toEqual([]);
  });

  it('me: the caller first, else by user name, e-mail, the only administrator, else nobody', () => {
    expect(matchAccount(local({ caller: 5 }), remote()).me).toBe(5);
    expect(matchAccount(local({ caller: 5 }), remote()).people.get(1)).toBeUndefined(); // the remote ada is taken
    const people = [person(7, 'someone', 'ada@r.example'), person(8, 'other', 'o@o', 'O', 'O', 1)];
    expect(matchAccount(local({ people }), remote()).me).toBe(7);
    const p2 = [person(7, 'someone', 's@s'), person(8, 'other', 'o@o', 'O', 'O', 1)];
    expect(matchAccount(local({ people: p2, caller: 7 }), remote()).me).toBe(7);
    expect(matchAccount(local({ people: p2 }), remote()).me).toBe(8);
    expect(matchAccount(local({ people: [...p2, person(9, 'third', 't@t', 'T', 'T', 1)] }), remote()).me).toBeNull();
  });

  it('projects: exact name; ambiguous names and projects the remote cannot create block', () => {
    const projects = [{ id: 10, name: 'Alpha' }, { id: 11, name: 'alpha' }, { id: 12, name: 'Twice' }, { id: 13, name: 'New' }];
    const m = matchAccount(local({ projects }), remote());
    expect([...m.projects]).toEqual([[10, 500]]);
    expect(m.create).toEqual([]);
    expect(m.blocks).toHaveLength(2);
    expect(m.blocks[0]).toMatch(/"Twice": 2 projects of that name on the remote/);
    expect(m.blocks[1]).toMatch(/^projects "alpha", "New": not on the remote, .*rename each here/);
    const c = matchAccount(local({ projects }), remote({ canCreateProjects: true }));
    expect(c.create).toEqual([11, 13]);
    expect(c.blocks).toHaveLength(1);
    const dup = matchAccount(local({ projects: [{ id: 10, name: 'Alpha' }, { id: 14, name: 'Alpha' }] }), remote());
    expect(dup.blocks).toEqual(['project "Alpha": 2 local projects of that name (rename one)', 'project "Alpha": 2 local projects of that name (rename one)']);
  });

  it('categories of matched projects by name and type, each remote one once', () => {
    const got = matchCategories(
      [{ id: 1, project_id: 10, name: 'Notes', type: 'post' }, { id: 2, project_id: 10, name: 'Notes', type: 'attachment' }, { id: 3, project_id: 10, name: 'Notes', type: 'post' }, { id: 4, project_id: 11, name: 'Notes', type: 'post' }],
      new Map([[10, 500]]), new Map([[500, [{ id: 70, name: 'Notes', type: 'post' }]]]));
    expect([...got]).toEqual([[1, 70]]);
  });

  it('time entries: an unmatched person, a person not a member there, or not the creator of a new project block', () => {
    const m = { ...matchAccount(local({ projects: [{ id: 10, name: 'Alpha' }, { id: 13, name: 'New' }] }), remote({ canCreateProjects: true })) };
    const entries = [
      { person_id: 1, project_id: 10 }, { person_id: 1, project_id: 13 }, { person_id: 2, project_id: 10 },
      { person_id: 5, project_id: 10 }, { person_id: 5, project_id: 10 }, { person_id: 3, project_id: 10 }, { person_id: 2, project_id: 13 },
    ];
    const name = (id: number) => `p${id}`;
    const got = blockedTime(entries, m, 100, new Map([[500, new Set([100, 101])]]), name, name);
    expect(got).toEqual([
      '2 time entries: p5 has no match on the remote',
      '1 time entry: p3 is not a member of "p10" on the remote',
      '1 time entry: p2 would not be a member of "p13" once created',
    ]);
  });
});
