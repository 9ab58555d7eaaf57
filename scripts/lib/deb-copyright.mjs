// The package's /usr/share/doc/tsadm/copyright (scripts/package-deb.mjs), machine-readable (DEP-5,
// https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/). /usr/bin/tsadm bundles, besides
// tsadm's own code, npm packages (esbuild inlines them with `legalComments: 'none'`, so their notices
// must travel here) and a Node.js binary (whose LICENSE carries the notices of every library Node.js
// embeds). Each gets a Files paragraph under the source path it came from, with its own license file
// as the license text.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** A DEP-5 multi-line field value: each line indented one space, an empty line as " .". */
function field(text) {
  return text.replace(/\s+$/, '').split('\n').map((l) => (l.trim() === '' ? ' .' : ` ${l.replace(/\s+$/, '')}`)).join('\n');
}

/** An SPDX expression ("(BSD-3-Clause OR GPL-2.0)") in DEP-5's spelling ("BSD-3-Clause or GPL-2.0"). */
function dep5License(spdx) {
  return spdx.replace(/[()]/g, '').replace(/\bOR\b/g, 'or').replace(/\bAND\b/g, 'and').replace(/\s+/g, ' ').trim();
}

/**
 * One bundled package as its directory holds it: name, version, license (DEP-5 spelling), the text of
 * its license file and the copyright lines found there (else its package.json author).
 *
 * @param {string} dir
 */
export function readPackageNotice(dir) {
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const file = readdirSync(dir).filter((n) => /^(licen[cs]e|copying)(\.(md|txt))?$/i.test(n)).sort()[0];
  const text = file === undefined ? undefined : readFileSync(path.join(dir, file), 'utf8');
  const lines = (text ?? '').split('\n').map((l) => l.trim()).filter((l) => /^(copyright\b|\(c\)|©)/i.test(l) && !/^copyright (notice|license|holders?)\b/i.test(l));
  const author = typeof pkg.author === 'string' ? pkg.author : pkg.author?.name;
  const license = typeof pkg.license === 'string' ? pkg.license : (pkg.license?.type ?? 'UNKNOWN');
  return {
    name: pkg.name,
    version: pkg.version,
    license: dep5License(license),
    text,
    copyright: lines.length > 0 ? [...new Set(lines)].map((l) => l.replace(/^copyright\s*(\(c\)|©)?\s*/i, '').trim()) : [author ? author.replace(/\s*<[^>]*>/, '') : `the ${pkg.name} authors`],
  };
}

/** Licenses whose full text Debian ships in /usr/share/common-licenses: referenced, not repeated. */
const COMMON = { 'Apache-2.0': 'Apache-2.0' };

/**
 * The copyright file. `packages`: the bundled npm packages, each with its path in the source tree
 * (`node_modules/…`) and `readPackageNotice`'s fields; `node`: the embedded Node.js (its version and
 * LICENSE text, from the pinned node-linux-<arch> package); `years`: tsadm's copyright years.
 *
 * @param {{ years: string, packages: Array<{ path: string } & ReturnType<typeof readPackageNotice>>, node: { path: string, version: string, license: string } }} input
 */
export function copyrightFile({ years, packages, node }) {
  const paragraphs = [
    [
      'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/',
      'Upstream-Name: tsadm',
      'Comment: /usr/bin/tsadm is a Node.js single executable application: the tsadm',
      ` bundle (tsadm's code and ${packages.length} npm packages) inside Node.js ${node.version}.`,
      ' The paragraphs below give each bundled part with the path it is built from.',
    ].join('\n'),
    ['Files: *', `Copyright: ${years} tsadm developers`, 'License: Apache-2.0'].join('\n'),
    [
      `Files: ${node.path}/*`,
      'Copyright: Node.js contributors and others (see the license text)',
      `Comment: Node.js ${node.version}, the runtime of /usr/bin/tsadm, and the libraries it`,
      ' embeds (V8, OpenSSL, ICU, libuv, zlib, …): its LICENSE file, which gives each one\'s notice.',
      'License: MIT and other-Node.js-bundled',
      field(node.license),
    ].join('\n'),
  ];
  const sorted = [...packages].sort((a, b) => a.path.localeCompare(b.path));
  for (const p of sorted) {
    const lines = [`Files: ${p.path}/*`, `Copyright: ${p.copyright.join('\n ')}`, `Comment: npm package ${p.name} ${p.version}`, `License: ${p.license}`];
    if (COMMON[p.license] === undefined) lines.push(p.text === undefined ? ' The package ships no license file; its package.json names the license above.' : field(p.text));
    paragraphs.push(lines.join('\n'));
  }
  paragraphs.push([
    'License: Apache-2.0',
    ' Licensed under the Apache License, Version 2.0 (the "License"); you may not',
    ' use this file except in compliance with the License. You may obtain a copy of',
    ' the License at https://www.apache.org/licenses/LICENSE-2.0',
    ' .',
    ' On Debian systems, the complete text of the Apache License, Version 2.0 can be',
    ' found in "/usr/share/common-licenses/Apache-2.0".',
  ].join('\n'));
  return `${paragraphs.join('\n\n')}\n`;
}

/** The npm packages whose files esbuild read for a bundle (its metafile's inputs), as their directories. */
export function bundledPackageDirs(metafile, repo) {
  const dirs = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m && existsSync(path.join(repo, m[1], 'package.json'))) dirs.add(m[1]);
  }
  return [...dirs].sort();
}
