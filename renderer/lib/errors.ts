// Errors in words (issue #28): the service's and the sync engine's messages for a failed connection are
// written for logs ("… is unreachable: ECONNREFUSED", "refused these credentials (401)"). The renderer
// says what happened and what to do instead. Messages it does not know are shown as they are.

/** What a network failure's code means, for a person. */
const NETWORK: [RegExp, string][] = [
  [/ECONNREFUSED|fetch failed|ECONNRESET|EPIPE/i, 'nothing answers there (is the server running, and is the address right?)'],
  [/ENOTFOUND|EAI_AGAIN|getaddrinfo/i, 'no computer has that name (check the address for a typing mistake)'],
  [/timed out|ETIMEDOUT|TimeoutError|aborted/i, 'it did not answer in time (the network or the server may be slow or down)'],
  [/EHOSTUNREACH|ENETUNREACH|ENETDOWN/i, 'the network does not lead there (check that this computer is online)'],
  [/CERT|SSL|TLS|self[- ]signed/i, 'its security certificate is not trusted (ask its administrator)'],
];

/** The wording of one message (unknown messages unchanged). */
export function inWords(message: string): string {
  const m = message.trim();
  // "Remote is unreachable: URL is unreachable: CODE" (connect) and "URL is unreachable: CODE" (a sync)
  const unreachable = /^(?:Remote is unreachable: )?(\S+) is unreachable: (.*)$/s.exec(m);
  if (unreachable) {
    const why = NETWORK.find(([re]) => re.test(unreachable[2]))?.[1] ?? 'the connection failed';
    return `Bivouac could not reach ${unreachable[1]}: ${why}. Nothing was changed; try again when it is back.`;
  }
  if (/^The remote refused these credentials \(401\)$/.test(m) || /^GET \/\S+: 401\b/.test(m)) {
    return 'The team server did not accept this user name and password. Check them (they are the ones you use on that server) and try again.';
  }
  const badUrl = /^Remote URL is invalid: (.*)$/s.exec(m);
  if (badUrl) return `“${badUrl[1]}” is not a server address. Type it as it appears in your browser, for example https://team.example.com.`;
  const notApi = /^Not a Bivouac\/Basecamp API at (\S+?):/.exec(m);
  if (notApi) return `The server at ${notApi[1]} answered, but not as a Bivouac or Basecamp server would. Check the address (it is the one you open in your browser).`;
  if (/^The remote does not show this person's API token/.test(m)) {
    return 'The team server does not give out this person’s API token, so Bivouac cannot sign in with a password there. Connect with an API token instead.';
  }
  return message;
}
