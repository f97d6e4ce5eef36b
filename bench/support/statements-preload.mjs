// Loaded into the service by bench/statements.ts (`node --import`, with an IPC channel): counts the executions of
// each SQL text and the time spent in them (node:sqlite's StatementSync get/all/run/iterate and DatabaseSync exec,
// wrapped; the checkpoint worker's thread loads it too, and counts apart: it never answers), and answers
// `{ statements: n }` with what it counted since the last asking, then starts again.

import { DatabaseSync, StatementSync } from 'node:sqlite';

const counted = new Map();
const wrap = (proto, name, sqlOf) => {
  const original = proto[name];
  proto[name] = function (...args) {
    const t0 = process.hrtime.bigint();
    try {
      return original.apply(this, args);
    } finally {
      const sql = sqlOf(this, args);
      const c = counted.get(sql) ?? { n: 0, ns: 0n };
      counted.set(sql, c);
      c.n++;
      c.ns += process.hrtime.bigint() - t0;
    }
  };
};
// `iterate` is timed while its iterator is made, not while it is read (the service does not iterate).
for (const name of ['get', 'all', 'run', 'iterate']) wrap(StatementSync.prototype, name, (st) => st.sourceSQL);
// SQL text run by `exec`: the Writer's BEGIN IMMEDIATE and COMMIT, among others.
wrap(DatabaseSync.prototype, 'exec', (_db, args) => `exec: ${String(args[0])}`);
process.channel?.unref();
process.on('message', (m) => {
  if (typeof m?.statements !== 'number') return;
  process.send?.({ statements: m.statements, counted: [...counted].map(([sql, c]) => [sql, c.n, Number(c.ns) / 1000]) });
  counted.clear();
});
