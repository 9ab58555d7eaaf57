/**
 * "host:port" text as Go's net package and kubeadm split and check it. Pure.
 */

export interface HostPort {
  readonly host: string;
  /** "" only where the caller accepted a missing port. */
  readonly port: string;
}

/**
 * Go's net.SplitHostPort, error texts included ("address X: missing port in address"):
 * "host:port" or "[host]:port", no "[" or "]" anywhere else.
 */
export function splitHostPort(hostport: string): HostPort | { error: string } {
  const fail = (why: string): { error: string } => ({ error: `address ${hostport}: ${why}` });
  const last = hostport.lastIndexOf(':');
  if (last < 0) return fail('missing port in address');
  let host: string;
  // Where a '[' resp. ']' may no longer appear.
  let openFrom = 0;
  let closeFrom = 0;
  if (hostport.startsWith('[')) {
    const end = hostport.indexOf(']');
    if (end < 0) return fail("missing ']' in address");
    if (end + 1 === hostport.length) return fail('missing port in address');
    if (end + 1 !== last) return fail(hostport[end + 1] === ':' ? 'too many colons in address' : 'missing port in address');
    host = hostport.slice(1, end);
    openFrom = 1;
    closeFrom = end + 1;
  } else {
    host = hostport.slice(0, last);
    if (host.includes(':')) return fail('too many colons in address');
  }
  if (hostport.slice(openFrom).includes('[')) return fail("unexpected '[' in address");
  if (hostport.slice(closeFrom).includes(']')) return fail("unexpected ']' in address");
  return { host, port: hostport.slice(last + 1) };
}

/** kubeadm's ParsePort: a decimal number between 1 and 65535. */
export function isValidPort(port: string | number): boolean {
  const text = String(port);
  if (!/^\d+$/.test(text)) return false;
  const n = Number(text);
  return n >= 1 && n <= 65535;
}

/** Go's net.JoinHostPort: brackets around hosts containing a colon. */
export function joinHostPort(host: string, port: number | string): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
