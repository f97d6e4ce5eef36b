// Before the real-Electron suite: the runtime is prepared (idempotent) and the builds it launches exist.
import { existsSync } from 'node:fs';
import { prepareElectron } from '../scripts/electron-runtime.mjs';
import { devEntry, packagedDir } from '../scripts/electron-launch.mjs';

export default async function globalSetup(): Promise<void> {
  const r = await prepareElectron();
  if ('skip' in r && r.skip) throw new Error(`no Electron runtime for the desktop tests: ${r.skip}`);
  if (!process.env.DISPLAY) throw new Error('no X display: run under xvfb-run (scripts/test.mjs does)');
  for (const f of [devEntry, `${packagedDir}/bivouac`]) {
    if (!existsSync(f)) throw new Error(`${f} is missing: run \`npm run package:dir\` first`);
  }
}
