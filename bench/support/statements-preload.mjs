// Loaded into the service by bench/statements.ts (`node --import`, with an IPC channel): counts the executions of
// each SQL text and the time spent in them (node:sqlite's StatementSync get/all/run/iterate, wrapped), and answers
// `{ statements: n }` with what it counted since the last asking, then starts again.

import { StatementSync } from 'node:sqlite';

const counted = new Map();
for (const name of ['get', 'all', 'run', 'iterate']) {
  const original = StatementSync.prototype[name];
  StatementSync.prototype[name] = function (...args) {
    const t0 = process.hrtime.bigint();
    try {
      return original.apply(this, args);
    } finally {
      const sql = this.sourceSQL;
      const c = counted.get(sql) ?? { n: 0, ns: 0n };
      counted.set(sql, c);
      c.n++;
      c.ns += process.hrtime.bigint() - t0;
    }
  };
}
process.channel?.unref();
process.on('message', (m) => {
  if (typeof m?.statements !== 'number') return;
  process.send?.({ statements: m.statements, counted: [...counted].map(([sql, c]) => [sql, c.n, Number(c.ns) / 1000]) });
  counted.clear();
});
