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
    log(`${SESSION_CHANNEL}: refused a sender (${sender.frameUrl === null ? 'no frame' : originOf(sender.frameUrl) ?? 'no origin'})`);
    return null;
  });
}
