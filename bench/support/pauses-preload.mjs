// Loaded into the service by bench/pauses.ts (`node --import`, with an IPC channel): records the service's
// garbage collections and how late a 1 ms timer fires (how long the event loop was held), and answers
// `{ pauses: n }` with what it recorded since the last asking, then starts again. The timer costs the
// service a wake-up per millisecond; nothing else here touches what it does.

import { PerformanceObserver } from 'node:perf_hooks';

const gcs = [];
const lates = [];
new PerformanceObserver((list) => { for (const e of list.getEntries()) gcs.push({ kind: e.detail?.kind ?? 0, ms: e.duration }); }).observe({ entryTypes: ['gc'] });
let last = performance.now();
setInterval(() => { const now = performance.now(); lates.push(now - last - 1); last = now; }, 1).unref();
process.channel?.unref(); // the channel does not keep the service alive
process.on('message', (m) => {
  if (typeof m?.pauses !== 'number') return;
  process.send?.({ pauses: m.pauses, gcs: gcs.splice(0), lates: lates.splice(0) });
});
