/**
 * What "a second run writes nothing" compares: the resourceVersion of every object in some API
 * collections and the mode, mtime and SHA-256 of every file under a root.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect } from '@jest/globals';
import type { TestApiServer } from './apiserver.js';

export interface ClusterSnapshot {
  readonly objects: Record<string, string>;
  readonly files: Record<string, string>;
}

export async function clusterSnapshot(server: TestApiServer, collections: readonly string[], rootDir: string): Promise<ClusterSnapshot> {
  const objects: Record<string, string> = {};
  for (const c of collections) {
    const r = await server.request('GET', c, { auth: 'admin' });
    expect(r.status).toBe(200);
    for (const item of r.body.items) objects[`${c} ${(item.metadata as { namespace?: string }).namespace ?? ''}/${item.metadata.name}`] = item.metadata.resourceVersion;
  }
  const files: Record<string, string> = {};
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else files[path.relative(rootDir, p)] = `${st.mode.toString(8)} ${st.mtimeMs} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`;
    }
  };
  walk(rootDir);
  return { objects, files };
}
