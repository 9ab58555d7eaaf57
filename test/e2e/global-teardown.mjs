// jest.config.js's globalTeardown of the e2e project: see harness-lifecycle.mjs.
export { globalTeardown as default } from './harness-lifecycle.mjs';
