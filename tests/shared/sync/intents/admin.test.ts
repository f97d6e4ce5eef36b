// The administration intents' planners and where administration is done (D338, D339): pure.

import { describe, expect, it } from 'vitest';
import { ADMIN_PLANNERS, administrationOf } from '../../../../shared/sync/intents/admin.ts';
import { planEntry } from '../../../../shared/sync/intents/index.ts';
import { Unmapped, type LocalView } from '../../../../shared/sync/plan.ts';
import type { IdLookup } from '../../../../shared/sync/ids.ts';

const view: LocalView = { row: () => undefined, order: () => [] };
const map = (known: Record<string, number>): IdLookup => (r, id) => known[`${r}:${id}`];

describe('administration planners', () => {
  it('a person create sends the given fields, the company by its remote id, the password only in the body; escaped', () => {
    const steps = ADMIN_PLANNERS['person.create']({ id: 7, person: { firstName: 'Nia <b>', lastName: 'N&N', userName: 'nia', emailAddress: 'n@x.example', companyId: 3, administrator: false, password: 'pw-12345678' } },
      [], view, map({ 'company:3': 41 }));
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ kind: 'create', resource: 'person', localId: 7, method: 'POST', path: '/people.xml' });
    expect(steps[0].body).toContain('<first-name>Nia &lt;b&gt;</first-name><last-name>N&amp;N</last-name>');
    expect(steps[0].body).toContain('<company-id>41</company-id><administrator>false</administrator><password>pw-12345678</password>');
    expect(steps[0].find).toBeUndefined();
  });

  it('a company not on the team server yet is Unmapped (the push waits or rejects), as is an update of a person never pushed', () => {
    expect(() => ADMIN_PLANNERS['person.create']({ id: 7, person: { companyId: 3 } }, [], view, map({}))).toThrow(Unmapped);
    expect(() => ADMIN_PLANNERS['person.update']({ id: 7, person: { firstName: 'X' } }, [], view, map({}))).toThrow(Unmapped);
    expect(() => ADMIN_PLANNERS['member.add']({ projectId: 1, personId: 7 }, [], view, map({ 'project:1': 10 }))).toThrow(Unmapped);
  });

  it('updates, deactivation and memberships go to the team server routes with remote ids', () => {
    const m = map({ 'person:7': 70, 'project:1': 10, 'company:3': 30 });
    expect(ADMIN_PLANNERS['person.update']({ id: 7, person: { title: 'Guide' } }, [], view, m)[0]).toMatchObject({ method: 'PUT', path: '/people/70.xml' });
    expect(ADMIN_PLANNERS['person.deactivate']({ id: 7 }, [], view, m)[0]).toMatchObject({ kind: 'delete', method: 'DELETE', path: '/people/70.xml', body: null });
    expect(ADMIN_PLANNERS['company.update']({ id: 3, company: { name: 'R' } }, [], view, m)[0]).toMatchObject({ method: 'PUT', path: '/companies/30.xml' });
    const add = ADMIN_PLANNERS['member.add']({ projectId: 1, personId: 7 }, [], view, m)[0];
    expect(add).toMatchObject({ method: 'POST', path: '/projects/10/people.xml' });
    expect(add.body).toContain('<person><id>70</id></person>');
    expect(ADMIN_PLANNERS['member.remove']({ projectId: 1, personId: 7 }, [], view, m)[0]).toMatchObject({ method: 'DELETE', path: '/projects/10/people/70.xml' });
  });

  it('a project intent replays the project row changes of its entry only (its creator membership is the server\'s)', () => {
    const steps = planEntry({
      intents: [{ name: 'project.create', args: { id: 5 } }],
      changes: [{ t: 'projects', id: 5, op: 'insert', v: { name: 'Denali', status: 'active', company_id: 1 } }, { t: 'project_members', id: 5, op: 'insert', v: { project_id: 5, person_id: 1 } }],
    }, view, map({ 'company:1': 1 }));
    expect(steps.map((s) => [s.kind, s.resource, s.path])).toEqual([['create', 'project', '/projects.xml']]);
  });
});

describe('where administration is done', () => {
  const at = (o: Partial<Record<string, string>>) => administrationOf((k) => o[k]);
  it('here without a remote; queued for a team server with admin; refused in words otherwise', () => {
    expect(at({})).toEqual({ mode: 'here' });
    expect(at({ url: 'http://t', remote_kind: 'admin' })).toEqual({ mode: 'queued', at: 'http://t' });
    expect(at({ url: 'http://p', remote_kind: 'plain' })).toMatchObject({ mode: 'elsewhere', plain: true, message: expect.stringContaining('http://p is not a Bivouac team server') as string });
    // An older team server, a remote not read yet, a disconnected replica (even one that was of a team server with admin).
    for (const st of [{ url: 'http://t', remote_kind: 'team' }, { url: 'http://t' }, { was_url: 'http://t', remote_kind: 'admin' }]) {
      expect(at(st)).toMatchObject({ mode: 'elsewhere', at: 'http://t', plain: false, message: expect.stringContaining('copy of the team server at http://t') as string });
    }
  });
});
