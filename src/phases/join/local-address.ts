import dgram from 'node:dgram';
import { isIP } from 'node:net';

/**
 * The local address the kernel would use to reach a server (a connected UDP socket sends
 * nothing). A joining worker has no advertise address of its own; this is its node address,
 * used only where the shared renderers want one.
 */
export function localAddressTowards(serverUrl: string): Promise<string | undefined> {
  let host: string;
  try {
    host = new URL(serverUrl).hostname.replace(/^\[(.*)\]$/, '$1');
  } catch {
    return Promise.resolve(undefined);
  }
  const family = isIP(host);
  if (family === 0) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const socket = dgram.createSocket(family === 6 ? 'udp6' : 'udp4');
    const done = (address: string | undefined): void => {
      socket.close();
      resolve(address);
    };
    socket.once('error', () => done(undefined));
    socket.connect(9, host, () => {
      try {
        done(socket.address().address);
      } catch {
        done(undefined);
      }
    });
  });
}
