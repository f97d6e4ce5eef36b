// People routes (contract §8.2, §8.13): read-only.

import type { FastifyInstance } from 'fastify';
import { RESOURCES } from '../../../shared/registry.ts';
import { route, type Reply, type Req } from '../api.ts';
import * as svc from '../../service/directory.ts';
import type { Row } from '../../store/types.ts';

const R = RESOURCES.person;
const many = (rows: Row[]): Reply => ({ kind: 'many', resource: R, rows });

export default async function people(app: FastifyInstance): Promise<void> {
  const ofCompany = async (r: Req): Promise<Reply> => many(await svc.peopleOfCompany(r.ctx, r.id('companyId')));
  route(app, '/contacts/people/:companyId', { style: 'action', any: ofCompany });
  route(app, '/companies/:companyId/people.xml', { style: 'resource', GET: ofCompany });
  route(app, '/projects/:projectId/contacts/people/:companyId', {
    style: 'action', any: async (r) => many(await svc.projectPeople(r.ctx, r.id('projectId'), r.id('companyId'))),
  });
  route(app, '/projects/:projectId/people.xml', {
    style: 'resource', GET: async (r) => many(await svc.projectPeople(r.ctx, r.id('projectId'))),
  });
  route(app, '/contacts/person/:personId', {
    style: 'action', any: async (r) => ({ kind: 'one', resource: R, row: await svc.person(r.ctx, r.id('personId')) }),
  });
  route(app, '/people/:id.xml', {
    style: 'resource', GET: async (r) => ({ kind: 'one', resource: R, row: await svc.person(r.ctx, r.id('id')) }),
  });
  const me = async (r: Req): Promise<Reply> => ({ kind: 'one', resource: R, row: await svc.me(r.ctx), me: true });
  route(app, '/me.xml', { style: 'resource', GET: me });
  route(app, '/people/me.xml', { style: 'resource', GET: me });
  route(app, '/people.xml', { style: 'resource', GET: async (r) => many(await svc.everyone(r.ctx)) });
}
