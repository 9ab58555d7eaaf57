import { TsadmError, type ErrorCode } from '../errors.js';

/**
 * A failed API call as one line: what tsadm tried, what the server said, how to fix it. The
 * HTTP status and the Status reason stay available for callers that branch on them.
 */
export class ApiError extends TsadmError {
  /** HTTP status; 0 for network errors. */
  readonly status: number;
  /** metav1.Status reason ("AlreadyExists", "Forbidden", …) or the network error code. */
  readonly reason: string;

  constructor(message: string, status: number, reason: string, options: { hint?: string; cause?: unknown; code?: ErrorCode } = {}) {
    super(options.code ?? 'E_API', message, {
      ...(options.hint !== undefined ? { hint: options.hint } : {}),
      ...(options.cause !== undefined ? { cause: options.cause } : {}),
    });
    this.name = 'ApiError';
    this.status = status;
    this.reason = reason;
  }
}

export function isApiError(err: unknown, status?: number): err is ApiError {
  return err instanceof ApiError && (status === undefined || err.status === status);
}

export const isAlreadyExists = (err: unknown): boolean => isApiError(err, 409) && err.reason === 'AlreadyExists';
export const isConflict = (err: unknown): boolean => isApiError(err, 409) && err.reason !== 'AlreadyExists';
export const isForbidden = (err: unknown): boolean => isApiError(err, 403);

/** Network failures worth retrying while the API server starts or restarts. */
const TRANSIENT_NET = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ESOCKETTIMEDOUT', 'UND_ERR_SOCKET']);

/** Whether retrying the same request later may succeed (server settling, throttling, 5xx). */
export function isTransient(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  if (err.status === 0) return TRANSIENT_NET.has(err.reason);
  return err.status === 429 || err.status >= 500;
}

interface StatusBody {
  readonly kind?: string;
  readonly message?: string;
  readonly reason?: string;
}

/** Turns an HTTP answer into an ApiError with a hint that says what to do about it. */
export function errorFromResponse(what: string, status: number, body: unknown, server: string): ApiError {
  const st = (body && typeof body === 'object' ? body : {}) as StatusBody;
  const message = st.message ?? `HTTP ${status}`;
  const reason = st.reason ?? String(status);
  const line = `${what}: ${message}`;
  switch (status) {
    case 401:
      return new ApiError(line, status, reason, { hint: `the API server at ${server} rejected the kubeconfig's credentials; check that it is an admin kubeconfig of this cluster (--kubeconfig)` });
    case 403:
      return new ApiError(line, status, reason, { hint: 'the kubeconfig user lacks RBAC permission for this; use the admin kubeconfig (/etc/kubernetes/admin.conf)' });
    case 404:
      return new ApiError(line, status, reason, { hint: 'the object or its namespace does not exist' });
    case 409:
      return new ApiError(line, status, reason, { hint: reason === 'AlreadyExists' ? 'the object already exists' : 'the object changed while tsadm updated it; run the command again' });
    case 422:
    case 400:
      return new ApiError(line, status, reason, { hint: 'the API server refused the object as invalid; this is likely a tsadm bug or an unsupported server version' });
    case 429:
      return new ApiError(line, status, reason, { hint: 'the API server is throttling requests; try again in a moment' });
    default:
      return new ApiError(line, status, reason, { hint: `the API server at ${server} failed; check its logs (crictl logs, or the kube-apiserver static pod)` });
  }
}

export function errorFromNetwork(what: string, err: unknown, server: string): ApiError {
  const code = (err as { code?: string }).code ?? 'ENETWORK';
  const message = err instanceof Error ? err.message : String(err);
  return new ApiError(`${what}: unable to reach the API server at ${server}: ${message}`, 0, code, {
    cause: err,
    hint: code === 'ECONNREFUSED'
      ? 'is the control plane running? check the kube-apiserver static pod (crictl ps -a) and the kubelet (journalctl -u kubelet)'
      : 'check the server address in the kubeconfig and that the API server is reachable from this host',
  });
}
