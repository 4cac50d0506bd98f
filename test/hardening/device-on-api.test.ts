/**
 * Issue #32 (10): BIOGATE_DEVICE_ON_API. With BIOGATE_DEVICE_PORT set, the device endpoints are served
 * on the device port only (the API port answers 404 for /iclock/), unless turned on; without a device
 * port they are on the API port unless turned off. Both HTTP engines.
 */
import t from 'tap';
import { freePort, startApp } from '../helpers/app.js';

const handshake = (base: string) =>
  fetch(`${base}/iclock/cdata?SN=ONAPI1&options=all&pushver=2.4.1`, { signal: AbortSignal.timeout(5000) });

for (const engine of ['node', 'uws'] as const) {
  t.test(`${engine}: device port set, BIOGATE_DEVICE_ON_API unset: /iclock/ on the API port is 404`, async (t) => {
    const devicePort = await freePort();
    const { url } = await startApp(t, { config: { devicePort, httpEngine: engine } });
    const onApi = await handshake(url);
    await onApi.arrayBuffer();
    t.equal(onApi.status, 404, 'API port: not served');
    const onDevice = await handshake(`http://127.0.0.1:${devicePort}`);
    t.equal(onDevice.status, 200, 'device port: served');
    t.match(await onDevice.text(), /GET OPTION FROM: ONAPI1/);
    const api = await fetch(`${url}/healthz`);
    t.equal(api.status, 200, 'the API port still serves the API');
  });

  t.test(`${engine}: device port set and BIOGATE_DEVICE_ON_API=on: both ports serve /iclock/`, async (t) => {
    const devicePort = await freePort();
    const { url } = await startApp(t, { env: { BIOGATE_DEVICE_ON_API: 'on' }, config: { devicePort, httpEngine: engine } });
    const onApi = await handshake(url);
    t.equal(onApi.status, 200);
    await onApi.arrayBuffer();
  });

  t.test(`${engine}: no device port: /iclock/ on the API port unless BIOGATE_DEVICE_ON_API=off`, async (t) => {
    const served = await startApp(t, { config: { httpEngine: engine } });
    const on = await handshake(served.url);
    t.equal(on.status, 200, 'default: served');
    await on.arrayBuffer();
    const off = await startApp(t, { env: { BIOGATE_DEVICE_ON_API: 'off' }, config: { httpEngine: engine } });
    const refused = await handshake(off.url);
    t.equal(refused.status, 404, 'off: 404');
    await refused.arrayBuffer();
  });
}
