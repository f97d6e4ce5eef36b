// Loaded into the service by bench/pauses.ts (`node --import`): records how long its event loop was held
// (a 1 ms timer's lateness) and its garbage collections, and writes both to PAUSES_OUT on SIGUSR2, then
// starts again. Measurement only: nothing here changes what the service does.

import { PerformanceObserver } from 'node:perf_hooks';
import { writeFileSync } from 'node:fs';

const out = process.env.PAUSES_OUT;
const gcs = [];
const lates = [];
new PerformanceObserver((list) => { for (const e of list.getEntries()) gcs.push({ kind: e.detail?.kind ?? 0, ms: e.duration }); }).observe({ entryTypes: ['gc'] });
let last = performance.now();
setInterval(() => { const now = performance.now(); lates.push(now - last - 1); last = now; }, 1).unref();
process.on('SIGUSR2', () => {
  if (out) writeFileSync(out, JSON.stringify({ gcs, lates }));
  gcs.length = 0;
  lates.length = 0;
});
