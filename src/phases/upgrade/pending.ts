import { TsadmError } from '../../errors.js';

/** Temporary: a phase whose implementation is being written (issue 15). Removed before the issue closes. */
export function pending(what: string): Promise<void> {
  return Promise.reject(new TsadmError('E_INTERNAL', `${what} is not implemented yet`, { hint: 'this build is a work in progress' }));
}
