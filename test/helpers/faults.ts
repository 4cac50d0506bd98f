// Store faults for crash and outage tests: the store's test hook (src/store/test-faults.ts) is installed
// for every app this process starts from now on, with no fault; `fault(true)` makes the named store call
// fail until `fault(false)`. The variable is restored when the test file ends.
import type { Test } from 'tap';
import { TEST_FAULTS_ENV } from '../../src/store/test-faults.js';

export function storeFault(t: Test, name: string): (on: boolean) => void {
  const previous = process.env[TEST_FAULTS_ENV];
  process.env[TEST_FAULTS_ENV] = '';
  t.teardown(() => {
    if (previous === undefined) delete process.env[TEST_FAULTS_ENV];
    else process.env[TEST_FAULTS_ENV] = previous;
  });
  return (on) => void (process.env[TEST_FAULTS_ENV] = on ? name : '');
}
