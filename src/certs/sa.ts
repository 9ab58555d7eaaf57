/**
 * The service-account signing key pair sa.key / sa.pub (kubeadm's
 * CreateServiceAccountKeyAndPublicKeyFiles): no certificate; an existing sa.key is reused.
 * Both files are 0600 (kubeadm writes the public key with its key writer).
 */
import { TsadmError } from '../errors.js';
import { MODES } from '../constants.js';
import { encodePrivateKeyPem, encodePublicKeyPem, sameKey } from '../pki/keys.js';
import type { PkiCtx } from './context.js';
import { readPrivateKey, readPublicKey } from './load.js';
import { keyPath, pkiFiles, publicKeyPath } from './paths.js';
import { SA_BASE_NAME } from './cert-table.js';

/**
 * `evenWithExternalCA`: make the pair in external-CA mode too (`certs generate-csr` prepares
 * every key such an init needs; the sa pair is never signed, so the CA's key does not matter).
 */
export async function ensureServiceAccountKey(ctx: PkiCtx, opts: { evenWithExternalCA?: boolean } = {}): Promise<void> {
  const dir = ctx.cfg.cluster.certificatesDir;
  const keyFile = keyPath(dir, SA_BASE_NAME);
  const pubFile = publicKeyPath(dir, SA_BASE_NAME);
  const ca = pkiFiles(dir, 'ca');
  // External CA mode (ca.crt without ca.key): kubeadm leaves the sa keys to the user.
  if (!opts.evenWithExternalCA && (await ctx.host.stat(ca.cert)) && !(await ctx.host.stat(ca.key))) {
    ctx.log.info('Using existing sa keys');
    if (!(await ctx.host.stat(keyFile))) ctx.log.warn(`external CA mode: ${keyFile} does not exist; provide the service-account key pair`);
    return;
  }
  const key = await readPrivateKey(ctx.host, keyFile);
  if (key) {
    const pub = await readPublicKey(ctx.host, pubFile);
    if (pub === undefined) {
      // kubeadm would leave sa.pub missing; deriving it from the key is safe and deterministic.
      await writePublicKey(ctx, pubFile, encodePublicKeyPem(key));
    } else if (!sameKey(pub, key)) {
      throw new TsadmError('E_CONFLICT', `${pubFile} is not the public key of ${keyFile}`, {
        hint: `remove ${pubFile} to let tsadm derive it from ${keyFile}`,
      });
    }
    ctx.log.info(`Using the existing "${SA_BASE_NAME}" key`);
    return;
  }
  const pair = await ctx.state.pki.keys.take(`certs/${SA_BASE_NAME}`, ctx.cfg.cluster.encryptionAlgorithm);
  ctx.log.info(`Generating "${SA_BASE_NAME}" key and public key`);
  await ctx.host.writeFile(keyFile, encodePrivateKeyPem(pair.privateKey), { mode: MODES.key, kind: 'private-key', description: 'service-account signing key' });
  await writePublicKey(ctx, pubFile, encodePublicKeyPem(pair.publicKey));
}

function writePublicKey(ctx: PkiCtx, file: string, pem: string): Promise<unknown> {
  return ctx.host.writeFile(file, pem, { mode: MODES.publicKeySa, kind: 'public-key', description: 'service-account public key' });
}
