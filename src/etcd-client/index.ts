/**
 * A small etcd v3 client for membership changes (join adds a member, reset removes one) over
 * etcd's JSON gRPC gateway with mutual TLS — no gRPC dependency, nothing kept open.
 */
export { EtcdClient, type EtcdClientOptions, type EndpointStatus } from './client.js';
export { EtcdRequestError, postJson, type EtcdTls } from './transport.js';
export { parseMembers, parseMember, memberByPeerURL, initialClusterFor, clientEndpoints, type EtcdMember } from './members.js';
export { etcdClientURL, etcdPeerURL, etcdTlsFromDir } from './urls.js';
