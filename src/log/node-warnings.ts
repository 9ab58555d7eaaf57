/**
 * Node's DEP0123 ("Setting the TLS ServerName to an IP address is not permitted by RFC 6066")
 * fires whenever a TLS client connects to an IP address with the IP as SNI. tsadm reaches etcd and
 * API servers by IP, as kubeadm does (https://127.0.0.1:2379, https://10.0.0.1:6443), and
 * verifies their certificates against IP SANs; the SNI value is the only thing deprecated, and
 * the library that sets it is grpc-js (open upstream: grpc/grpc-node#1919), not tsadm. Left alone,
 * every `tsadm etcd snapshot save` (and every run of its timer, in the journal) printed that
 * warning on stderr. Only this one code is dropped; every other warning is printed as before.
 */
const IP_SERVERNAME = 'DEP0123';

export function quietIpServerNameWarning(proc: Pick<NodeJS.Process, 'emitWarning'> = process): void {
  const emit = proc.emitWarning.bind(proc) as (...args: unknown[]) => void;
  proc.emitWarning = (...args: unknown[]) => {
    if (warningCode(args) === IP_SERVERNAME) return;
    emit(...args);
  };
}

/** The code of process.emitWarning(warning, type, code) or (warning, { code }). */
function warningCode(args: readonly unknown[]): unknown {
  const [warning, second, third] = args;
  if (warning instanceof Error && 'code' in warning) return (warning as { code?: unknown }).code;
  if (typeof second === 'object' && second !== null) return (second as { code?: unknown }).code;
  return third;
}
