import { describe, expect, it } from 'vitest';
import { inWords } from '../../../renderer/lib/errors.ts';

describe('errors in words (issue #28)', () => {
  it('says what happened and what to do, without codes', () => {
    const refused = inWords('Remote is unreachable: http://127.0.0.1:9 is unreachable: ECONNREFUSED');
    expect(refused).toBe('Bivouac could not reach http://127.0.0.1:9: nothing answers there (is the server running, and is the address right?). Nothing was changed; try again when it is back.');
    expect(inWords('https://team.example is unreachable: ENOTFOUND')).toContain('no computer has that name');
    expect(inWords('https://team.example is unreachable: timed out')).toContain('did not answer in time');
    expect(inWords('The remote refused these credentials (401)')).toMatch(/did not accept this user name and password/);
    expect(inWords('Remote URL is invalid: ftp://x')).toContain('is not a server address');
    expect(inWords('Not a Bivouac/Basecamp API at http://x: GET /me.xml: 404')).toContain('not as a Bivouac or Basecamp server');
    for (const m of [refused, inWords('The remote refused these credentials (401)')]) expect(m).not.toMatch(/ECONN|401|unreachable/);
  });
  it('leaves other messages as they are', () => {
    expect(inWords('Title can’t be blank')).toBe('Title can’t be blank');
  });
});
