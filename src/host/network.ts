import { readFileSync } from 'node:fs';
import os from 'node:os';

/**
 * The IP of the interface holding the default route (kubeadm's ChooseHostInterface), used as the
 * default advertise address. Undefined when the machine has no default route: the user must
 * pass --apiserver-advertise-address then, as with kubeadm.
 */
export function defaultRouteAddress(routeTable = safeRead('/proc/net/route'), interfaces = os.networkInterfaces()): string | undefined {
  const rows = routeTable.split('\n').slice(1).map((l) => l.trim().split(/\s+/));
  const defaults = rows.filter((r) => r[1] === '00000000' && r[7] === '00000000').map((r) => r[0]);
  for (const iface of defaults) {
    const addr = (interfaces[iface ?? ''] ?? []).find((a) => a.family === 'IPv4' && !a.internal);
    if (addr) return addr.address;
  }
  const v6 = safeRead('/proc/net/ipv6_route').split('\n').map((l) => l.trim().split(/\s+/))
    .filter((r) => r[0] === '00000000000000000000000000000000' && r[1] === '00' && r[9] !== 'lo').map((r) => r[9]);
  for (const iface of v6) {
    const addr = (interfaces[iface ?? ''] ?? []).find((a) => a.family === 'IPv6' && !a.internal && !a.address.startsWith('fe80'));
    if (addr) return addr.address;
  }
  return undefined;
}

/** The lowercased hostname: kubeadm's default node name. */
export function nodeHostname(): string {
  return os.hostname().toLowerCase();
}

function safeRead(p: string): string {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return '';
  }
}
