/**
 * Random bootstrap tokens, generated as kubeadm does (cluster-bootstrap token/util
 * GenerateBootstrapToken): characters 0-9a-z, each from one crypto-random byte below 252 taken
 * modulo 36, so every character is equally likely.
 */
import { randomBytes as cryptoRandomBytes } from 'node:crypto';

export const BOOTSTRAP_TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;

const TOKEN_CHARS = '0123456789abcdefghijklmnopqrstuvwxyz';
/** Largest multiple of 36 that fits in a byte: bytes at or above it would bias the modulo. */
const MAX_BYTE = 252;

export type RandomBytes = (size: number) => Uint8Array;

function randomChars(length: number, random: RandomBytes): string {
  let out = '';
  while (out.length < length) {
    for (const b of random((length - out.length) * 2)) {
      if (b >= MAX_BYTE) continue;
      out += TOKEN_CHARS[b % TOKEN_CHARS.length];
      if (out.length === length) break;
    }
  }
  return out;
}

export function generateBootstrapToken(random: RandomBytes = cryptoRandomBytes): string {
  return `${randomChars(6, random)}.${randomChars(16, random)}`;
}
