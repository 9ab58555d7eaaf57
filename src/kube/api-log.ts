import type { Logger, TsadmEvent } from '../log/events.js';
import type { KubeObject } from './types.js';

/** What the API layer reports through: a Logger, plus the current phase when there is one. */
export type ApiLog = Pick<Logger, 'info' | 'debug' | 'event'> & { readonly phase?: string | undefined };

export type ObjectAction = Extract<TsadmEvent, { type: 'object' }>['action'];

/** Every write (and every "already up to date") becomes an `object` event. */
export function emitObject(log: ApiLog | undefined, action: ObjectAction, obj: Pick<KubeObject, 'kind' | 'metadata'>): void {
  if (!log) return;
  log.event({
    type: 'object',
    ts: new Date().toISOString(),
    action,
    kind: obj.kind,
    name: obj.metadata.name,
    ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}),
    ...(log.phase ? { phase: log.phase } : {}),
  });
}
