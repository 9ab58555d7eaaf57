export { etcdPhase, runLocalEtcd } from './phase.js';
export { renderEtcdPod, etcdProbeTarget, ETCD_ADVERTISE_CLIENT_URLS_ANNOTATION, type EtcdMember, type EtcdRenderOptions } from './render.js';
