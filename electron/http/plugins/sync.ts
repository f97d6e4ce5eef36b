// The sync extension (docs/sync-protocol.md): discovery and the change feed.

import type { FastifyInstance } from 'fastify';
import { RESOURCES } from '../../../shared/registry.ts';
import { jsonOne, xmlOne, XML_DECL } from '../../../shared/codec/out.ts';
import { route } from '../api.ts';
import { viewOf, type Caller } from '../../service/context.ts';
import { changes, parseFeedQuery, type FeedPage } from '../../service/feed.ts';
import { BATCH_BYTES, BATCH_MAX, batchRoute } from '../batch.ts';
import { noticesRoute } from '../notices.ts';

export const PROTOCOL = 1;
/** Compatible additions to protocol 1 (docs/sync-protocol.md §1): 2 = conflict notices (§6, D330), 3 = `admin` (§7, D338). */
export const PROTOCOL_VERSION = 3;

function feedJson(c: Caller, page: FeedPage): string {
  const view = viewOf(c);
  return JSON.stringify({
    cursor: String(page.cursor), more: page.more, clock: String(page.clock),
    changes: page.entries.map((e) => (e.row
      ? { seq: e.seq, resource: e.resource, id: e.id, op: e.op, record: jsonOne(RESOURCES[e.resource], e.row, view) }
      : { seq: e.seq, resource: e.resource, id: e.id, op: e.op })),
  });
}

function feedXml(c: Caller, page: FeedPage): string {
  const view = viewOf(c);
  let out = `${XML_DECL}<changes type="array" cursor="${page.cursor}" more="${page.more}" clock="${page.clock}">\n`;
  for (const e of page.entries) {
    out += `  <change>\n    <seq type="integer">${e.seq}</seq>\n    <resource>${e.resource}</resource>\n`;
    out += `    <id type="integer">${e.id}</id>\n    <op>${e.op}</op>\n`;
    if (e.row) {
      const rec = xmlOne(RESOURCES[e.resource], e.row, view).slice(XML_DECL.length).replace(/^(?=.)/gm, '      ');
      out += `    <record>\n${rec}    </record>\n`;
    }
    out += '  </change>\n';
  }
  return `${out}</changes>\n`;
}

export default async function sync(app: FastifyInstance): Promise<void> {
  route(app, '/sync/capabilities.xml', {
    style: 'resource',
    // `batch`: one request for many writes (§5, D284), with its limits. `admin`: a replica's queued administration (D338).
    GET: async () => ({
      kind: 'custom',
      json: () => JSON.stringify({ protocol: PROTOCOL, version: PROTOCOL_VERSION, feed: true, idempotency: true, batch: { max: BATCH_MAX, bytes: BATCH_BYTES }, notices: true, admin: true }),
      xml: () => `${XML_DECL}<capabilities>\n  <protocol type="integer">${PROTOCOL}</protocol>\n  <version type="integer">${PROTOCOL_VERSION}</version>\n`
        + `  <feed type="boolean">true</feed>\n  <notices type="boolean">true</notices>\n  <admin type="boolean">true</admin>\n`
        + `  <idempotency type="boolean">true</idempotency>\n  <batch>\n    <max type="integer">${BATCH_MAX}</max>\n`
        + `    <bytes type="integer">${BATCH_BYTES}</bytes>\n  </batch>\n</capabilities>\n`,
    }),
  });
  batchRoute(app);
  noticesRoute(app);
  route(app, '/sync/changes.xml', {
    style: 'resource',
    GET: async (r) => {
      const q = parseFeedQuery(r.query('since', true) || undefined, r.query('limit', true), r.query('items', true), r.query('ahead', true));
      const page = await changes(r.ctx, q.since, q.limit, q.items, q.ahead);
      return {
        kind: 'custom', headers: { 'X-Bivouac-Cursor': String(page.cursor) },
        json: () => feedJson(r.ctx.caller, page), xml: () => feedXml(r.ctx.caller, page),
      };
    },
  });
}
