import t from 'tap';
import { createCommandExecutor } from '../../src/simulator/command-executor.js';
import { formatResult, parseCommandReply } from '../../src/simulator/command-reply.js';
import { createFailureInjector } from '../../src/simulator/failure-injection.js';
import { createRng } from '../../src/simulator/rng.js';
import { harness } from './fixtures/harness.js';

const T = { timeout: 10_000 };

t.test('getrequest reply lines [PUSH-v2 §7.2]', T, async (t) => {
  t.same(parseCommandReply('OK'), { commands: [], junk: [] });
  t.same(
    parseCommandReply(
      'C:1:INFO\r\nC:OPENDOOR0:AC_UNLOCK\nC:2:DATA QUERY ATTLOG StartTime=2026-02-01 00:00:00\tEndTime=2026-02-10 23:59:59\ngarbage\nC::x\n',
    ),
    {
      commands: [
        { id: '1', command: 'INFO' },
        { id: 'OPENDOOR0', command: 'AC_UNLOCK' },
        { id: '2', command: 'DATA QUERY ATTLOG StartTime=2026-02-01 00:00:00\tEndTime=2026-02-10 23:59:59' },
      ],
      junk: ['garbage', 'C::x'],
    },
  );
});

t.test('result blocks [PUSH-v2 §8.1–§8.2]', T, async (t) => {
  t.equal(formatResult('7', { code: -1002, cmd: 'DATA' }), 'ID=7&Return=-1002&CMD=DATA');
  t.equal(formatResult('1', { code: 0, cmd: 'INFO', lines: ['~DeviceName=X', 'MAC=Y'] }), 'ID=1&Return=0&CMD=INFO\n~DeviceName=X\nMAC=Y');
  // fixture A29
  t.equal(
    formatResult('32', { code: 0, cmd: 'Shell', content: 'Tue Mar 24 16:12:26 GMT 2026' }),
    'ID=32\nReturn=0\nCMD=Shell\nContent=Tue Mar 24 16:12:26 GMT 2026',
  );
});

t.test('executor: injection first, then the dialect', T, async (t) => {
  const v2 = harness();
  const exec2 = createCommandExecutor(v2.ctx, createFailureInjector({ 'DATA QUERY': -1002 }, 0, -1005, createRng(1)));
  t.same(await exec2('5', 'DATA QUERY USERINFO'), {
    id: '5',
    command: 'DATA QUERY USERINFO',
    returnCode: -1002,
    cmd: 'DATA',
    result: 'ID=5&Return=-1002&CMD=DATA',
    effect: 'none',
    enroll: undefined,
  });
  t.equal(v2.uploads.length, 0, 'a forced command has no effect');
  t.match(await exec2('6', 'REBOOT'), { returnCode: 0, effect: 'restart', result: 'ID=6&Return=0&CMD=REBOOT' });
  const v3 = harness({ protocol: 'v3' });
  const exec3 = createCommandExecutor(v3.ctx, createFailureInjector({}, 1, -12, createRng(1)));
  t.match(await exec3('9', 'CONTROL DEVICE 03000000'), { returnCode: -12, cmd: 'CONTROL DEVICE', effect: 'none' });
  const run3 = createCommandExecutor(v3.ctx, createFailureInjector({}, 0, -12, createRng(1)));
  t.match(await run3('10', 'CONTROL DEVICE 03000000'), { returnCode: 0, effect: 'restart', result: 'ID=10&Return=0&CMD=CONTROL DEVICE' });
});
