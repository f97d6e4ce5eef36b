// The Overview route (docs/api-extensions.md E7, D300–D302): GET /overview.xml and its .json twin. The query is
// decoded here (a cursor this route gave, a limit), the page read by service/overview.ts, and rendered as
// `<overview>` with `<events type="array">` and `<next-before>`, or its JSON twin.

import type { FastifyInstance } from 'fastify';
import { esc, formatFloat, XML_DECL } from '../../../shared/codec/out.ts';
import { route } from '../api.ts';
import { badRequest } from '../../service/context.ts';
import { DEFAULT_LIMIT, EVENT_KINDS, MAX_LIMIT, overview, type Cursor, type OverviewEvent, type OverviewPage } from '../../service/overview.ts';

const CURSOR_RE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)\.(\d)\.(\d{1,16})$/;
/** A cursor below a whole second (the page held all of it): its time alone. */
const SECOND_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** `before` of the query: a cursor this route gave (400 otherwise). */
export function parseBefore(raw: string | undefined): Cursor | undefined {
  if (raw === undefined) return undefined;
  if (SECOND_RE.test(raw) && !Number.isNaN(Date.parse(raw))) return { at: raw, rank: -1, id: 0 };
  const m = CURSOR_RE.exec(raw);
  const rank = m ? Number(m[2]) : -1;
  const id = m ? Number(m[3]) : 0;
  if (!m || rank >= EVENT_KINDS.length || !Number.isSafeInteger(id) || id < 1 || Number.isNaN(Date.parse(m[1]))) {
    throw badRequest('before must be the next-before of a previous page');
  }
  return { at: m[1], rank, id };
}

/** `limit` of the query: 1 to 100 (default 30). */
export function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_LIMIT;
  if (!/^\d{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_LIMIT) throw badRequest(`limit must be a whole number from 1 to ${MAX_LIMIT} (got "${raw.slice(0, 20)}")`);
  return Number(raw);
}

// ---- rendering (XML and its JSON twin) ----------------------------------------------------------

type Typed = readonly [name: string, type: 'integer' | 'datetime' | 'float' | 'string', value: string | number | null];

const fieldsOf = (e: OverviewEvent): readonly Typed[] => [
  ['kind', 'string', e.kind], ['at', 'datetime', e.at],
  ['project-id', 'integer', e.project_id], ['project-name', 'string', e.project_name],
  ['resource', 'string', e.resource], ['record-id', 'integer', e.id],
  ['title', 'string', e.title], ['excerpt', 'string', e.excerpt],
  ['parent-type', 'string', e.parent_type], ['parent-id', 'integer', e.parent_id],
  ['person-id', 'integer', e.person_id], ['person-name', 'string', e.person_name],
  ['hours', 'float', e.hours],
];

function xmlField([name, type, value]: Typed, indent: string): string {
  const t = type === 'string' ? '' : ` type="${type}"`;
  if (value === null) return `${indent}<${name}${t} nil="true"></${name}>\n`;
  const text = type === 'float' ? formatFloat(Number(value)) : esc(String(value));
  return `${indent}<${name}${t}>${text}</${name}>\n`;
}

export function overviewXml(page: OverviewPage): string {
  let out = `${XML_DECL}<overview>\n  <events type="array">\n`;
  for (const e of page.events) out += `    <event>\n${fieldsOf(e).map((f) => xmlField(f, '      ')).join('')}    </event>\n`;
  out += '  </events>\n';
  out += xmlField(['next-before', 'string', page.next_before], '  ');
  return `${out}</overview>\n`;
}

export function overviewJson(page: OverviewPage): string {
  return JSON.stringify({
    events: page.events.map((e) => Object.fromEntries(fieldsOf(e).map(([k, , v]) => [k.replace(/-/g, '_'), v]))),
    next_before: page.next_before,
  });
}

export default async function overviewRoutes(app: FastifyInstance): Promise<void> {
  route(app, '/overview.xml', {
    style: 'resource',
    GET: async (r) => {
      const page = await overview(r.ctx, { before: parseBefore(r.query('before')), limit: parseLimit(r.query('limit')) });
      return { kind: 'custom', xml: () => overviewXml(page), json: () => overviewJson(page) };
    },
  });
}
