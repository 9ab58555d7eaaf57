import { privateFileProblem } from '../../../src/host/private-file.js';

describe('a file tsadm acts on as root (a plan, a snapshot): as ssh wants a private key', () => {
  test('owned by root (or the running user), no group or world write', () => {
    expect(privateFileProblem({ isFile: true, mode: 0o100600, uid: 0 }, 0)).toBeUndefined();
    expect(privateFileProblem({ isFile: true, mode: 0o100644, uid: 0 }, 0)).toBeUndefined();
    expect(privateFileProblem({ isFile: true, mode: 0o100600, uid: 1000 }, 1000)).toBeUndefined();
    expect(privateFileProblem({ isFile: true, mode: 0o100666, uid: 0 }, 0)).toBe('it is writable by everyone (mode 0666)');
    expect(privateFileProblem({ isFile: true, mode: 0o100660, uid: 0 }, 0)).toBe('it is writable by its group (mode 0660)');
    expect(privateFileProblem({ isFile: true, mode: 0o100600, uid: 1000 }, 0)).toBe('it is owned by uid 1000, not by root');
    expect(privateFileProblem({ isFile: false, mode: 0o10600, uid: 0 }, 0)).toBe('it is not a regular file');
  });
});
