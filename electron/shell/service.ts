// The local service as the shell starts it: electron/server.ts's serve() on <userData>/data, without
// the plain-text token files (the shell keeps the local and the remote token in its encrypted secrets,
// D110), plus the backup export.

import { writeFile, rename } from 'node:fs/promises';
import { serve, ownerToken } from '../server.ts';
import { exportAccount } from '../service/account.ts';
import type { LocalService, StartService } from './port.ts';
import { serviceLog } from './service-log.ts';

export { serviceLog };

export function serviceStarter(o: { uiDir: string | null; demo: boolean }): StartService {
  return async ({ dataDir, port, tokenVault, log }) => {
    const running = await serve({ dataDir, port, remoteTokenVault: tokenVault, host: '127.0.0.1', uiDir: o.uiDir, logLevel: 'warn',
      logStream: log ? serviceLog(log) : undefined, demo: o.demo, writeTokenFile: false });
    const owner = await ownerToken(running.store);
    const service: LocalService = {
      url: new URL(running.url).origin,
      token: owner?.token ?? '',
      async exportBackup(file) {
        const json = `${JSON.stringify(await exportAccount(running.store), null, 1)}\n`;
        const tmp = `${file}.partial`;
        await writeFile(tmp, json, { mode: 0o600 });
        await rename(tmp, file);
      },
      close: (c) => running.close(c),
    };
    return service;
  };
}
