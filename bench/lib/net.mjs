// A free TCP port on loopback for the bench's own etcd and kube-apiserver (bench/snapshot.mjs,
// bench/footprint.mjs): bound, read, released.
import net from 'node:net';

export function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}
