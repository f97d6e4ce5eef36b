// Company routes (contract §8.3), and their administration (extension E3 of docs/api-extensions.md).

import type { FastifyInstance } from 'fastify';
import { RESOURCES } from '../../../shared/registry.ts';
import { route, type Reply, type Req } from '../api.ts';
import * as svc from '../../service/directory.ts';
import * as admin from '../../service/admin.ts';
import { companyInput } from '../admin-input.ts';

const R = RESOURCES.company;

export default async function companies(app: FastifyInstance): Promise<void> {
  route(app, '/companies.xml', {
    style: 'resource', body: true,
    GET: async (r) => ({ kind: 'many', resource: R, rows: await svc.companies(r.ctx) }),
    POST: async (r) => {
      const row = await admin.createCompany(r.ctx, companyInput(r.root));
      return { kind: 'one', resource: R, row, status: 201, headers: { Location: `/companies/${Number(row.id)}.xml` } };
    },
  });
  route(app, '/contacts/companies', { style: 'action', any: async (r) => ({ kind: 'many', resource: R, rows: await svc.allCompanies(r.ctx) }) });
  route(app, '/projects/:projectId/companies.xml', {
    style: 'resource', GET: async (r) => ({ kind: 'many', resource: R, rows: await svc.projectCompanies(r.ctx, r.id('projectId')) }),
  });
  const show = async (r: Req): Promise<Reply> =>
    ({ kind: 'one', resource: R, row: await svc.company(r.ctx, r.id('companyId')) });
  route(app, '/companies/:companyId.xml', {
    style: 'resource', body: true, GET: show,
    PUT: async (r) => ({ kind: 'one', resource: R, row: await admin.updateCompany(r.ctx, r.id('companyId'), companyInput(r.root)) }),
  });
  route(app, '/contacts/company/:companyId', { style: 'action', any: show });
}
