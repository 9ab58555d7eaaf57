import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { scratchDir, type Scratch } from './built-cli.js';

/** A scratch directory holding a --rootfs (`root`, with etc/kubernetes) and a sibling `outside` it. */
export interface ScratchRoot {
  readonly dir: string;
  readonly root: string;
  readonly outside: string;
}

/**
 * Registers beforeEach/afterEach hooks that give every test of the file a fresh ScratchRoot and
 * remove it afterwards; the returned object always holds the current test's paths.
 */
export function scratchRootEachTest(prefix: string): ScratchRoot {
  const current = { dir: '', root: '', outside: '' };
  let s: Scratch;
  beforeEach(() => {
    s = scratchDir(prefix);
    current.dir = s.dir;
    current.root = path.join(s.dir, 'root');
    current.outside = path.join(s.dir, 'outside');
    mkdirSync(path.join(current.root, 'etc/kubernetes'), { recursive: true });
    mkdirSync(current.outside);
  });
  afterEach(() => s.cleanup());
  return current;
}
