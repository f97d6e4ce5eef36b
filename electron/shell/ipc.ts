// The main side of the IPC contract (shared/ipc.ts): one handler per invoke channel (a missing one is
// a type error), each call checked before it runs: the sender must be a frame of the app's own origin
// inside the app's window, and the arguments must pass the contract's checks.

import { INVOKE_ARG_CHECKS, INVOKE_CHANNELS, SESSION_CHANNEL, type InvokeArgs, type InvokeChannel, type InvokeResult, type ShellSession } from '../../shared/ipc.ts';
import { originOf } from './guards.ts';
import type { ElectronPort, IpcSender } from './port.ts';

export type InvokeHandlers = { readonly [C in InvokeChannel]: (...args: InvokeArgs<C>) => Promise<InvokeResult<C>> | InvokeResult<C> };

export class IpcRefused extends Error {}

export interface Trust {
  /** The app's origin (the local service); '' before it started. */
  origin(): string;
  /** The contents id of the app's window (null while there is none). */
  windowContentsId(): number | null;
}

export function trustedSender(sender: IpcSender, trust: Trust): boolean {
  const origin = trust.origin();
  return origin !== '' && sender.frameUrl !== null && originOf(sender.frameUrl) === origin && sender.contentsId === trust.windowContentsId();
}

/** Who a refused sender was, for the log: its frame's origin (never the path or query, which may hold anything). */
function describeSender(sender: IpcSender): string {
  if (sender.frameUrl === null) return 'no frame';
  if (sender.frameUrl === '') return 'an empty document of another web contents';
  if (/^about:/i.test(sender.frameUrl)) return sender.frameUrl.slice(0, 40);
  return originOf(sender.frameUrl) ?? 'no origin';
}

/** Run one call: check the sender and the arguments, then the handler. */
export async function dispatch<C extends InvokeChannel>(channel: C, handlers: InvokeHandlers, sender: IpcSender, args: readonly unknown[], trust: Trust): Promise<InvokeResult<C>> {
  if (!trustedSender(sender, trust)) throw new IpcRefused(`${channel}: refused (the sender is not the app's page)`);
  const problem = INVOKE_ARG_CHECKS[channel](args);
  if (problem) throw new IpcRefused(`${channel}: ${problem}`);
  const handler = handlers[channel] as (...a: readonly unknown[]) => Promise<InvokeResult<C>> | InvokeResult<C>;
  return await handler(...args);
}

export function registerIpc(port: Pick<ElectronPort, 'ipc'>, handlers: InvokeHandlers, session: () => ShellSession | null, trust: Trust, log: (msg: string) => void): void {
  for (const channel of INVOKE_CHANNELS) {
    port.ipc.handle(channel, async (sender, args) => {
      try {
        return await dispatch(channel, handlers, sender, args, trust);
      } catch (e) {
        if (e instanceof IpcRefused) log(e.message);
        else log(`${channel} failed: ${(e as Error).message}`);
        throw e;
      }
    });
  }
  // The session (with the token) only ever goes to the app's own page.
  port.ipc.onSync(SESSION_CHANNEL, (sender) => {
    if (trustedSender(sender, trust)) return session();
    // The app window's initial empty document (URL ''): it commits, and runs the preload, only when a debugger
    // attaches to the window before its first navigation (Playwright's _electron does). Not the app's page, so no
    // session; but nothing is amiss either, so no warning (the page's own load asks again, D261).
    if (sender.frameUrl === '' && sender.contentsId === trust.windowContentsId()) return null;
    log(`${SESSION_CHANNEL}: refused a sender (${describeSender(sender)})`);
    return null;
  });
}
