import type { RestRequest, RestResponse, RestTransport } from '../../../src/kube/transport.js';

/**
 * A scripted transport for the error paths a real API server will not produce on demand
 * (throttling, 5xx, refused connections). Each answer is a response or a network error code.
 */
export type Answer = { status: number; body?: unknown } | { netError: string };

export class ScriptedTransport implements RestTransport {
  readonly server = 'https://127.0.0.1:6443';
  readonly requests: RestRequest[] = [];
  constructor(private readonly answer: (req: RestRequest, n: number) => Answer) {}

  request(req: RestRequest): Promise<RestResponse> {
    this.requests.push(req);
    const a = this.answer(req, this.requests.length);
    if ('netError' in a) return Promise.reject(Object.assign(new Error(`connect ${a.netError} 127.0.0.1:6443`), { code: a.netError }));
    return Promise.resolve({ status: a.status, body: a.body, text: a.body === undefined ? '' : JSON.stringify(a.body) });
  }

  close(): void {}
}

export function status(code: number, reason: string, message: string): Answer {
  return { status: code, body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason, message, code } };
}
