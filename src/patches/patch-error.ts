/**
 * Why a single patch could not be applied; apply.ts turns it into a TsadmError naming the file,
 * the target and the patch type.
 */
export class PatchError extends Error {
  override readonly name = 'PatchError';
}
