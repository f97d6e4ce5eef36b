// The administration commands of the command line (issue #27, D277), dispatched from cli.ts:
//   bivouac people add --first-name A --last-name B --user U --email E --company ID [--admin] [--invite]
//   bivouac people update ID [--first-name A] [--last-name B] [--user U] [--email E] [--company ID] [--admin|--no-admin] [--password]
//   bivouac people deactivate ID
//   bivouac projects add NAME [--company ID] | rename ID NAME | archive ID
//   bivouac members add PROJECT PERSON | remove PROJECT PERSON
// Common: [--data-dir DIR] [--store URL] [--json]. A password is read from BIVOUAC_PASSWORD or one line of
// stdin (never an argument: it would show in the process list); `people add` without one needs --invite,
// which prints a one-time invitation token. They run the same operations as the routes, as the account's
// first administrator, directly on the store (a team server's first administrator has nobody to ask).

import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openStore, DB_FILE } from './server.ts';
import * as admin from './service/admin.ts';
import * as projects from './service/projects.ts';
import { ApiError, viewOf, type Ctx } from './service/context.ts';
import { RESOURCES, type Resource } from '../shared/registry.ts';
import { jsonOne } from '../shared/codec/out.ts';
import type { Row } from './store/types.ts';

export const ADMIN_COMMANDS: readonly string[] = ['people', 'projects', 'members'];

export const ADMIN_USAGE = `administration (acts as the account's first administrator; --json prints records as JSON):
  people add --first-name A --last-name B --user U --email E --company ID [--admin] [--invite]
                    the password is read from BIVOUAC_PASSWORD or stdin; --invite: none, print an invitation token
  people update ID [--first-name A] [--last-name B] [--user U] [--email E] [--company ID] [--admin|--no-admin] [--password]
  people deactivate ID
  projects add NAME [--company ID] | projects rename ID NAME | projects archive ID
  members add PROJECT_ID PERSON_ID | members remove PROJECT_ID PERSON_ID`;

class CliError extends Error {}

function id(s: string | undefined, what: string): number {
  if (!s || !/^\d{1,15}$/.test(s) || Number(s) < 1) throw new CliError(`${what} must be a number (got ${s === undefined ? 'nothing' : JSON.stringify(s)})`);
  return Number(s);
}

async function stdinLine(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0];
}
const readPassword = async (): Promise<string> => process.env.BIVOUAC_PASSWORD ?? await stdinLine();

/** Run `bivouac people|projects|members …`; returns the exit code (0 done, 1 refused, 2 usage). */
export async function adminMain(argv: string[], defaultDataDir: string, out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv, allowPositionals: true, strict: true, allowNegative: true,
      options: {
        'data-dir': { type: 'string' }, store: { type: 'string' }, json: { type: 'boolean' },
        'first-name': { type: 'string' }, 'last-name': { type: 'string' }, user: { type: 'string' }, email: { type: 'string' },
        company: { type: 'string' }, admin: { type: 'boolean' }, invite: { type: 'boolean' }, password: { type: 'boolean' },
        title: { type: 'string' },
      },
    });
  } catch (e) {
    err.write(`bivouac: ${(e as Error).message}\n${ADMIN_USAGE}\n`);
    return 2;
  }
  const o = args.values;
  const [group, verb, ...rest] = args.positionals;
  const dataDir = resolve(o['data-dir'] ?? defaultDataDir);
  const storeUrl = o.store || process.env.BIVOUAC_STORE || null;
  const print = (resource: Resource, row: Row, text: string, extra: Record<string, unknown> = {}) => {
    out.write(o.json ? `${JSON.stringify({ ...jsonOne(resource, row, viewOf({ id: 0, companyId: 0, firm: true, admin: true, name: '' })), ...extra })}\n` : `${text}\n`);
  };
  let replica: string | null = null;
  try {
    if (!storeUrl && !existsSync(join(dataDir, DB_FILE))) throw new CliError(`no store in ${dataDir}: run 'bivouac setup' or 'bivouac serve' first`);
    const store = await openStore(dataDir, null, false, storeUrl);
    try {
      replica = await admin.replicaOf(store);
      const caller = await admin.localAdministrator(store);
      if (!caller) throw new CliError('the account has no active administrator');
      const ctx: Ctx = { store, caller };
      const P = RESOURCES.person, J = RESOURCES.project;
      const input = async (): Promise<admin.PersonInput> => ({
        firstName: o['first-name'], lastName: o['last-name'], userName: o.user, emailAddress: o.email,
        companyId: o.company === undefined ? undefined : id(o.company, '--company'), administrator: o.admin, title: o.title,
        password: o.password || (group === 'people' && verb === 'add' && !o.invite) ? await readPassword() : undefined,
      });
      switch (`${group} ${verb}`) {
        case 'people add': {
          const row = await admin.createPerson(ctx, await input());
          if (o.invite) {
            const inv = await admin.invite(ctx, Number(row.id));
            print(P, row, `added person ${row.id} (${row.user_name}); invitation token (valid until ${inv.expiresAt}, once): ${inv.token}`,
              { invitation: { token: inv.token, expires_at: inv.expiresAt } });
          } else print(P, row, `added person ${row.id} (${row.user_name})`);
          return 0;
        }
        case 'people update': {
          const row = await admin.updatePerson(ctx, id(rest[0], 'ID'), await input());
          print(P, row, `updated person ${row.id} (${row.user_name})`);
          return 0;
        }
        case 'people deactivate': {
          const pid = id(rest[0], 'ID');
          await admin.deactivatePerson(ctx, pid);
          out.write(o.json ? `${JSON.stringify({ id: pid, active: false })}\n` : `deactivated person ${pid}\n`);
          return 0;
        }
        case 'projects add': {
          if (!rest[0]) throw new CliError('projects add needs a NAME');
          const row = await projects.create(ctx, o.company === undefined ? { name: rest[0] } : { name: rest[0], company_id: o.company });
          print(J, row, `added project ${row.id} (${rest[0]})`);
          return 0;
        }
        case 'projects rename': {
          const pid = id(rest[0], 'ID');
          if (!rest[1]) throw new CliError('projects rename needs ID and NAME');
          const row = await projects.update(ctx, pid, { name: rest[1] });
          print(J, row, `renamed project ${pid} to ${rest[1]}`);
          return 0;
        }
        case 'projects archive': {
          const pid = id(rest[0], 'ID');
          const row = await projects.update(ctx, pid, { status: 'archived' });
          print(J, row, `archived project ${pid}`);
          return 0;
        }
        case 'members add': {
          const [pid, person] = [id(rest[0], 'PROJECT_ID'), id(rest[1], 'PERSON_ID')];
          const row = await admin.addProjectMember(ctx, pid, person);
          print(P, row, `added person ${person} to project ${pid}`, { project_id: pid });
          return 0;
        }
        case 'members remove': {
          const [pid, person] = [id(rest[0], 'PROJECT_ID'), id(rest[1], 'PERSON_ID')];
          await admin.removeProjectMember(ctx, pid, person);
          out.write(o.json ? `${JSON.stringify({ project_id: pid, person_id: person, member: false })}\n` : `removed person ${person} from project ${pid}\n`);
          return 0;
        }
        default:
          throw new CliError(`unknown command '${[group, verb].filter(Boolean).join(' ')}'\n${ADMIN_USAGE}`);
      }
    } finally {
      await store.close();
    }
  } catch (e) {
    if (e instanceof ApiError) {
      if (o.json) out.write(`${JSON.stringify({ errors: e.messages })}\n`);
      err.write(`bivouac: ${e.messages.join('\n')}\n`);
      // A replica refuses the administration (409, D332): say where it is done instead.
      if (e.status === 409 && replica) {
        err.write(`bivouac: run this command where the team server's data is (its --data-dir or --store), or open ${replica} in a browser and use People as an administrator; the change comes here with the next sync\n`);
      }
      return 1;
    }
    if (e instanceof CliError) {
      err.write(`bivouac: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}
