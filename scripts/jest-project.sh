#!/usr/bin/env bash
# `npm run test:unit|test:e2e [-- <paths and jest flags>]`: jest for one project.
#
# The project is named after everything else: jest's --selectProjects takes every value that
# follows it, so `jest.js --selectProjects unit test/unit/x.test.ts` reads the path as a second
# project name and runs the whole project (docs/decisions.md, decision 4's note).
set -euo pipefail
project=$1
shift
exec node --experimental-vm-modules "$(dirname "$0")/../node_modules/jest/bin/jest.js" "$@" --selectProjects "$project"
