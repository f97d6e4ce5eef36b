// People routes (contract §8.2, §8.13), and the administration of people and project members
// (extensions E2, E4, E5 and E6 of docs/api-extensions.md).

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { RESOURCES } from '../../../shared/registry.ts';
import { XML_DECL } from '../../../shared/codec/out.ts';
import { parseBody, route, sendError, type Reply, type Req } from '../api.ts';
import * as svc from '../../service/directory.ts';
import * as admin from '../../service/admin.ts';
import { ApiError } from '../../service/context.ts';
import { acceptInput, memberInput, personInput } from '../admin-input.ts';
import type { Row } from '../../store/types.ts';

const R = RESOURCES.person;
const many = (rows: Row[]): Reply => ({ kind: 'many', resource: R, rows });
const created = (row: Row, location: string): Reply => ({ kind: 'one', resource: R, row, status: 201, headers: { Location: location } });

export default async function people(app: FastifyInstance): Promise<void> {
  const ofCompany = async (r: Req): Promise<Reply> => many(await svc.peopleOfCompany(r.ctx, r.id('companyId')));
  route(app, '/contacts/people/:companyId', { style: 'action', any: ofCompany });
  route(app, '/companies/:companyId/people.xml', { style: 'resource', GET: ofCompany });
  route(app, '/projects/:projectId/contacts/people/:companyId', {
    style: 'action', any: async (r) => many(await svc.projectPeople(r.ctx, r.id('projectId'), r.id('companyId'))),
  });
  route(app, '/projects/:projectId/people.xml', {
    style: 'resource', body: true,
    GET: async (r) => many(await svc.projectPeople(r.ctx, r.id('projectId'))),
    POST: async (r) => {
      const pid = r.id('projectId');
      const row = await admin.addProjectMember(r.ctx, pid, memberInput(r.root));
      return created(row, `/people/${Number(row.id)}.xml`);
    },
  });
  route(app, '/projects/:projectId/people/:personId.xml', {
    style: 'resource',
    DELETE: async (r) => { await admin.removeProjectMember(r.ctx, r.id('projectId'), r.id('personId')); return { kind: 'empty' }; },
  });
  route(app, '/contacts/person/:personId', {
    style: 'action', any: async (r) => ({ kind: 'one', resource: R, row: await svc.person(r.ctx, r.id('personId')) }),
  });
  route(app, '/people/:id.xml', {
    style: 'resource', body: true,
    GET: async (r) => ({ kind: 'one', resource: R, row: await svc.person(r.ctx, r.id('id')) }),
    PUT: async (r) => ({ kind: 'one', resource: R, row: await admin.updatePerson(r.ctx, r.id('id'), personInput(r.root)), me: r.id('id') === r.ctx.caller.id }),
    DELETE: async (r) => { await admin.deactivatePerson(r.ctx, r.id('id')); return { kind: 'empty' }; },
  });
  route(app, '/people/:id/invitation.xml', {
    style: 'resource',
    POST: async (r) => {
      const inv = await admin.invite(r.ctx, r.id('id'));
      return { kind: 'plain', root: 'invitation', entries: [['person-id', 'integer', inv.personId], ['token', 'string', inv.token], ['expires-at', 'datetime', inv.expiresAt]] };
    },
  });
  // Public (E6): the invited person sets a password. Every refusal is one 404 (nothing to probe).
  for (const [url, json] of [['/invitations/accept.xml', false], ['/invitations/accept.json', true]] as const) {
    app.route({
      method: 'POST', url, config: { public: true },
      handler: async (req: FastifyRequest, reply) => {
        const asJson = json || req.wantsJson === true;
        try {
          const root = parseBody(Buffer.isBuffer(req.body) ? req.body : undefined, req.bodyType);
          const a = acceptInput(root);
          await admin.acceptInvitation(app.store, a.token, a.userName, a.password);
          return reply.code(200).send('');
        } catch (e) {
          if (e instanceof ApiError) return sendError(reply, e, asJson);
          throw e;
        }
      },
    });
  }
  const me = async (r: Req): Promise<Reply> => ({ kind: 'one', resource: R, row: await svc.me(r.ctx), me: true });
  route(app, '/me.xml', { style: 'resource', GET: me });
  route(app, '/people/me.xml', { style: 'resource', GET: me });
  // Extension (D291): who is deactivated, for the People area (administrators).
  route(app, '/people/deactivated.xml', { style: 'resource', GET: async (r) => many(await admin.deactivatedPeople(r.ctx)) });
  // Extension (D331): the ids of the deactivated people the caller sees, for everyone's pickers.
  route(app, '/people/deactivated-ids.xml', {
    style: 'resource',
    GET: async (r) => {
      const { ids, complete } = await admin.deactivatedIdsSeen(r.ctx);
      return {
        kind: 'custom',
        json: () => JSON.stringify({ complete, ids }),
        xml: () => `${XML_DECL}<deactivated-ids>\n  <complete type="boolean">${complete}</complete>\n  <ids type="array">`
          + ids.map((id) => `\n    <id type="integer">${id}</id>`).join('') + `${ids.length ? '\n  ' : ''}</ids>\n</deactivated-ids>\n`,
      };
    },
  });
  route(app, '/people.xml', {
    style: 'resource', body: true,
    GET: async (r) => many(await svc.everyone(r.ctx)),
    POST: async (r) => {
      const row = await admin.createPerson(r.ctx, personInput(r.root));
      return created(row, `/people/${Number(row.id)}.xml`);
    },
  });
}
