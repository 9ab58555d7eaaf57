// jest.config.js's globalSetup of the e2e project: see harness-lifecycle.mjs.
export { globalSetup as default } from './harness-lifecycle.mjs';
