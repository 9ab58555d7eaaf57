/**
 * A loopback TCP port for a test server that may stop and start again on the same port (an etcd
 * member restarted, a static Pod the stand-in kubelet restarts).
 *
 * Why not listen(0): the kernel hands out a port from the ephemeral range
 * (/proc/sys/net/ipv4/ip_local_port_range, 32768–60999 by default), the same range every outgoing
 * connection on the machine takes its source port from. While the server is down, another
 * process's connection can take that port, and the restart fails with EADDRINUSE. In one CI run a
 * restarted etcd member never came back that way. Ports below the ephemeral range are never
 * chosen as source ports, so only another test's explicit choice can collide, and the bind check
 * here rules that out at the time of the call.
 */
import net from 'node:net';
import { readFileSync } from 'node:fs';

const FLOOR = 20000;
/** Ports this process already handed out: two members of one lab never get the same one. */
const handedOut = new Set<number>();

/** The first port of the ephemeral range (32768 when the file cannot be read). */
function ephemeralFloor(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > FLOOR + 1000 ? first : 32768;
  } catch {
    return 32768;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A free port between 20000 and the ephemeral range, picked at random (test files run in parallel). */
export async function freePort(): Promise<number> {
  const ceiling = ephemeralFloor();
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = FLOOR + Math.floor(Math.random() * (ceiling - FLOOR));
    if (handedOut.has(port) || !(await bindable(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(`no free loopback port between ${FLOOR} and ${ceiling} after 200 tries`);
}
