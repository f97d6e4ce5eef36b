// A preload of the test's own (e2e-electron/shell.spec.ts): a window that is not the app's window, with a page of
// the app's own origin, gets raw IPC: what a compromised or foreign page could send. Main must refuse it.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a sandboxed preload is CommonJS
const { contextBridge, ipcRenderer } = require('electron');

contextBridge.exposeInMainWorld('forge', {
  session: () => ipcRenderer.sendSync('shell:session'),
  invoke: (channel, ...args) => ipcRenderer.invoke(channel, ...args),
});
