import { promises as fs, constants as fsc } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import dns from 'node:dns/promises';
import type { SystemProbe } from './check.js';
import { unixSocketAnswers } from '../../host/running-system.js';

/** The real machine, for preflight. */
export const realSystem: SystemProbe = {
  uid: () => (typeof process.getuid === 'function' ? process.getuid() : 0),
  cpus: () => os.cpus().length,
  memoryMB: () => Math.floor(os.totalmem() / (1024 * 1024)),
  portFree: (port) =>
    new Promise((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen({ port, exclusive: true }, () => server.close(() => resolve(true)));
    }),
  readProc: async (p) => fs.readFile(p, 'utf8').catch(() => undefined),
  which: async (program) => {
    for (const dir of (process.env.PATH ?? '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin').split(':')) {
      const candidate = path.join(dir, program);
      try {
        await fs.access(candidate, fsc.X_OK);
        return candidate;
      } catch {
        // keep looking
      }
    }
    return undefined;
  },
  socketReachable: unixSocketAnswers,
  resolveHost: async (name) => dns.lookup(name).then(() => true, () => false),
  env: (name) => process.env[name] ?? process.env[name.toLowerCase()],
};
