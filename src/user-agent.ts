import { TSADM_VERSION, goPlatform } from './commands/version-info.js';

/**
 * The User-Agent of every request tsadm sends (API server, discovery, etcd), in the form
 * kubeadm uses ("kubeadm/v1.20.2 (linux/amd64) …"). The API server names the field manager of
 * what a request writes after the part before the first "/", so managedFields and audit logs
 * show "tsadm" rather than "unknown".
 */
export const USER_AGENT = `tsadm/v${TSADM_VERSION} (${goPlatform()})`;
