// First run (docs/setup.md, D96, D240): `GET /setup.json` says whether the data directory has an account
// (and whether it is the demo); `POST /setup.json` creates your own account or loads the demo, once,
// only from this computer. Both are public: there is nobody to authenticate yet. A server that serves a
// network (a team server) never offers the first run over HTTP: `bivouac setup` on its machine does it.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../service/context.ts';
import * as svc from '../../service/setup.ts';
import { sendError } from '../api.ts';
import { SyncError, type SyncPort } from '../../service/sync.ts';

export interface SetupPluginOptions {
  /** Called after an account was created (the server writes the api-token file). */
  readonly onCreated?: () => Promise<void>;
  /** The sync engine: `{"remote": …}` connects the empty directory to a team server (a clone). */
  readonly sync?: SyncPort | null;
  /**
   * The server serves a network (a non-loopback host, a trusted proxy, a PostgreSQL store): POST is refused
   * to everyone, before anything is read or requested (D240).
   */
  readonly network?: boolean;
}

const LOCAL = /^(127\.|::1$|::ffff:127\.)/;
const NOT_HERE = 'The first-run setup of a server that serves a network is not offered over HTTP: '
  + "run 'bivouac setup' on the server's machine (see bivouac --help and docs/setup.md)";

export default async function setup(app: FastifyInstance, opts: SetupPluginOptions): Promise<void> {
  // One first run at a time (per app instance): two forms sent together must not make two accounts.
  let running: Promise<void> = Promise.resolve();
  // A first-run connect is cloning (nobody can sign in yet to read /sync/status): GET shows its progress.
  let cloning = false;

  const form = opts.network !== true;
  /** The status, and whether the first-run form is offered over HTTP (`form`: false on a team server). */
  const shown = async () => ({ ...(await svc.status(app.store)), form });
  const json = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body));

  app.route({
    method: ['GET', 'HEAD'], url: '/setup.json', config: { public: true },
    handler: async (_req, reply) => {
      const st = await shown();
      // A first-run connect (POST below), or a connect going on in the background (a start with --remote, D253),
      // or an empty directory already linked whose clone goes on (nobody can sign in before the owner arrives).
      const sync = opts.sync && (cloning || st.empty) ? await opts.sync.status() : null;
      const busy = cloning || (st.empty && (sync?.state === 'connecting' || (sync?.remote ?? null) !== null));
      return json(reply, 200, busy ? { ...st, connecting: { progress: sync?.progress ?? null } } : st);
    },
  });

  app.route({
    method: 'POST', url: '/setup.json', config: { public: true },
    handler: async (req: FastifyRequest, reply) => {
      if (!form) return sendError(reply, new ApiError(403, [NOT_HERE]), true);
      // The client's address as resolved through a trusted proxy (Fastify's req.ip), never the socket's:
      // behind a proxy on this machine every socket is a loopback one (D240).
      if (!LOCAL.test(req.ip ?? '')) {
        return sendError(reply, new ApiError(403, ['The first-run setup is only offered on the computer Bivouac runs on']), true);
      }
      let body: Record<string, unknown>;
      try {
        const raw = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
        body = raw.trim() ? JSON.parse(raw) as Record<string, unknown> : {};
        if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('not an object');
      } catch {
        return sendError(reply, new ApiError(400, ['The body must be a JSON object']), true);
      }
      const work = running.then(async () => {
        if (body.demo === true) await svc.loadDemo(app.store);
        else if (body.remote !== undefined) {
          // Connect to a team server (docs/setup.md): the directory becomes a replica of that person.
          const r = (body.remote ?? {}) as Record<string, unknown>;
          const str = (k: string) => (typeof r[k] === 'string' ? (r[k] as string).trim() : '');
          if (!opts.sync) throw new ApiError(501, ['This service cannot sync']);
          if (!(await svc.status(app.store)).empty) throw new ApiError(409, ['This data directory already has an account']);
          const errs = [!str('url') && "url can't be blank", !str('user') && "user can't be blank",
            typeof r.password !== 'string' || !r.password ? "password can't be blank" : null].filter(Boolean) as string[];
          if (errs.length) throw new ApiError(422, errs);
          cloning = true;
          try {
            await opts.sync.connect(str('url'), { user: str('user'), password: r.password as string });
          } catch (e) {
            if (e instanceof SyncError) throw new ApiError(e.status, [e.message]);
            throw e;
          } finally {
            cloning = false;
          }
          opts.sync.start();
        } else {
          const s = (body.setup ?? {}) as Record<string, unknown>;
          const str = (k: string) => (typeof s[k] === 'string' ? s[k] as string : '');
          await svc.createOwn(app.store, {
            firmName: str('firm_name'), firstName: str('first_name'), lastName: str('last_name'), userName: str('user_name'),
            password: typeof s.password === 'string' ? s.password : '', email: str('email'), projectName: str('project_name'),
          });
        }
        await opts.onCreated?.();
      });
      running = work.catch(() => undefined);
      await work;
      return json(reply, 201, await shown());
    },
  });
}
