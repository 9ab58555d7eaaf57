import { TsadmError } from '../../src/errors.js';

/** The TsadmError p rejects with; any other rejection is rethrown, and fulfilment is an error ("expected <what>"). */
export async function tsadmErrorOf(p: Promise<unknown>, what = 'a failure'): Promise<TsadmError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof TsadmError) return err;
    throw err;
  }
  throw new Error(`expected ${what}`);
}

/** The TsadmError fn throws; any other throw is rethrown, and a normal return is an error ("expected <what>"). */
export function tsadmErrorOfCall(fn: () => unknown, what = 'a TsadmError'): TsadmError {
  try {
    fn();
  } catch (err) {
    if (err instanceof TsadmError) return err;
    throw err;
  }
  throw new Error(`expected ${what}`);
}
