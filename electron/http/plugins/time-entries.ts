// Time entry routes (contract §8.10, §8.11), both styles. Every route is a thin adapter over
// service/time-entries.ts.

import type { FastifyInstance } from 'fastify';
import { RESOURCES } from '../../../shared/registry.ts';
import { route, type Handler, type Reply } from '../api.ts';
import * as svc from '../../service/time-entries.ts';
import { legacyTimeEntryInput, timeEntryInput } from '../inputs.ts';
import type { Row } from '../../store/types.ts';
import type { Template } from '../../service/templates.ts';

const R = RESOURCES.timeEntry;
const one = (row: Row, status?: number): Reply => ({
  kind: 'one', resource: R, row, status, headers: status === 201 ? { Location: R.location!(Number(row.id)) } : undefined,
});
const many = (rows: readonly Row[], headers?: Record<string, string>): Reply => ({ kind: 'many', resource: R, rows, headers });
const template = (t: { template: Template; action: string }, header: string): Reply =>
  ({ kind: 'plain', root: t.template.root, entries: t.template.entries, headers: { [header]: t.action } });

export default async function timeEntries(app: FastifyInstance): Promise<void> {
  // ---- report
  route(app, '/time_entries/report.xml', {
    style: 'resource',
    GET: async (r) => many(await svc.report(r.ctx, svc.reportQuery((n) => r.query(n)))),
  });
  const legacyReport: Handler = async (r) => {
    const p = r.params;
    return many(await svc.report(r.ctx, svc.legacyReport(p.person ?? '', p.from ?? '', p.to ?? '', p.filter ?? '')));
  };
  const free = ['person', 'from', 'to', 'filter'];
  route(app, '/time/report/:person/:from/:to', { style: 'action', free, any: legacyReport });
  route(app, '/time/report/:person/:from/:to/', { style: 'action', free, any: legacyReport });
  route(app, '/time/report/:person/:from/:to/:filter', { style: 'action', free, any: legacyReport });

  // ---- lists and creates
  route(app, '/projects/:projectId/time_entries.xml', {
    style: 'resource', body: true,
    GET: async (r) => {
      const page = await svc.listForProject(r.ctx, r.id('projectId'), r.query('page'));
      return many(page.rows, page.headers);
    },
    POST: async (r) => one(await svc.create(r.ctx, r.id('projectId'), timeEntryInput(r.root)), 201),
  });
  route(app, '/todo_items/:todoId/time_entries.xml', {
    style: 'resource', body: true,
    GET: async (r) => many(await svc.listForItem(r.ctx, r.id('todoId'))),
    POST: async (r) => one(await svc.createForItem(r.ctx, r.id('todoId'), timeEntryInput(r.root)), 201),
  });
  route(app, '/time/save_entry', { style: 'action', body: true, any: async (r) => one(await svc.createLegacy(r.ctx, legacyTimeEntryInput(r.root)), 201) });

  // ---- one entry
  const show: Handler = async (r) => one(await svc.get(r.ctx, r.id('id')));
  route(app, '/time_entries/:id.xml', {
    style: 'resource', body: true,
    GET: show,
    PUT: async (r) => one(await svc.update(r.ctx, r.id('id'), timeEntryInput(r.root))),
    DELETE: async (r) => { await svc.remove(r.ctx, r.id('id')); return { kind: 'empty' }; },
  });
  route(app, '/time_entries/:id', { style: 'resource', GET: show });
  route(app, '/time/save_entry/:id', { style: 'action', body: true, any: async (r) => one(await svc.update(r.ctx, r.id('id'), timeEntryInput(r.root))) });
  route(app, '/projects/:projectId/time/delete_entry/:id', {
    style: 'action', any: async (r) => one(await svc.remove(r.ctx, r.id('id'), r.id('projectId'))),
  });

  // ---- templates (§8.11)
  route(app, '/projects/:projectId/time_entries/new.xml', {
    style: 'resource', GET: async (r) => template(await svc.newTemplate(r.ctx, r.id('projectId')), 'X-Create-Action'),
  });
  route(app, '/time_entries/:id/edit.xml', {
    style: 'resource', GET: async (r) => template(await svc.editTemplate(r.ctx, r.id('id')), 'X-Update-Action'),
  });
}
