// Company routes (contract §8.3): read-only.

import type { FastifyInstance } from 'fastify';
import { RESOURCES } from '../../../shared/registry.ts';
import { route, type Reply, type Req } from '../api.ts';
import * as svc from '../../service/directory.ts';

const R = RESOURCES.company;

export default async function companies(app: FastifyInstance): Promise<void> {
  route(app, '/companies.xml', { style: 'resource', GET: async (r) => ({ kind: 'many', resource: R, rows: await svc.companies(r.ctx) }) });
  route(app, '/contacts/companies', { style: 'action', any: async (r) => ({ kind: 'many', resource: R, rows: await svc.allCompanies(r.ctx) }) });
  route(app, '/projects/:projectId/companies.xml', {
    style: 'resource', GET: async (r) => ({ kind: 'many', resource: R, rows: await svc.projectCompanies(r.ctx, r.id('projectId')) }),
  });
  const show = async (r: Req): Promise<Reply> =>
    ({ kind: 'one', resource: R, row: await svc.company(r.ctx, r.id('companyId')) });
  route(app, '/companies/:companyId.xml', { style: 'resource', GET: show });
  route(app, '/contacts/company/:companyId', { style: 'action', any: show });
}
