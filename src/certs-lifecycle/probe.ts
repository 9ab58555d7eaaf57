/**
 * A static pod's HTTP liveness probe (from its manifest), run the way the kubelet runs it:
 * success is a status in [200, 400), HTTPS without verifying the serving certificate. Only the
 * node's own addresses are probed (what the manifest names; loopback when it names none).
 */
import http from 'node:http';
import https from 'node:https';
import { loadYaml } from '../yaml/read.js';
import { isPlainObject } from '../util/plain-object.js';

export interface HttpProbe {
  readonly url: string;
}

/** up: probe passes; down: nothing listens (the process is gone); unhealthy: anything else. */
export type ProbeState = 'up' | 'down' | 'unhealthy';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (isPlainObject(v) ? v : undefined);

/** The first container's livenessProbe.httpGet as a URL, or undefined when there is none. */
export function probeFromManifest(text: string): HttpProbe | undefined {
  let doc: unknown;
  try {
    doc = loadYaml(text);
  } catch {
    return undefined;
  }
  const containers = obj(obj(doc)?.spec)?.containers;
  const get = obj(obj(obj(Array.isArray(containers) ? containers[0] : undefined)?.livenessProbe)?.httpGet);
  if (!get || (typeof get.port !== 'number' && !/^\d+$/.test(String(get.port)))) return undefined;
  const scheme = typeof get.scheme === 'string' && get.scheme.toLowerCase() === 'https' ? 'https' : 'http';
  const host = typeof get.host === 'string' && get.host !== '' ? get.host : '127.0.0.1';
  const p = typeof get.path === 'string' ? get.path : '/';
  return { url: `${scheme}://${host.includes(':') ? `[${host}]` : host}:${String(get.port)}${p.startsWith('/') ? p : `/${p}`}` };
}

export function runProbe(probe: HttpProbe, timeoutMs = 2000): Promise<ProbeState> {
  const url = new URL(probe.url);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const req = client.get(url, { timeout: timeoutMs, rejectUnauthorized: false, agent: false }, (res) => {
      res.resume();
      const code = res.statusCode ?? 0;
      resolve(code >= 200 && code < 400 ? 'up' : 'unhealthy');
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED' ? 'down' : 'unhealthy'));
  });
}
