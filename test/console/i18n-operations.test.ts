/**
 * The operations pages in Spanish and Vietnamese (issue #38 item 7), in Chromium against the real app: Alerts (the
 * rules table, a rule created and deleted with the form), Webhooks (the list, a test delivery listed with its status in
 * words, the typed confirmation of a deletion), History (columns, who, the record filter and its empty state), the
 * emergency scenarios (the lockdown banner released from the console, an evacuation started from the Commands page with
 * its typed confirmation); then the same pages after the header's switch to Vietnamese. axe-core clean in both themes.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Locator } from 'playwright-core';
import t, { type Test } from 'tap';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { countShown, signedInSpanish } from './pages.js';

/** An HTTP receiver on loopback that answers 200 to everything. */
async function receiver(t: Test): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
}

t.test('the operations pages in Spanish, then Vietnamese', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t, { config: { webhookAllowPrivate: 'on', webhookAllowHttp: 'on', longpollS: 0 } });
  const hook = await receiver(t);
  t.equal((await g.a.api('POST', '/api/devices', { body: { sn: 'OPS-1' } })).status, 201);
  t.equal((await g.a.api('POST', '/api/users', { body: { pin: 11, first_name: 'Lan' } })).status, 201);
  t.equal((await g.a.api('POST', '/api/webhooks', { body: { url: hook, events: ['attendance.recorded'] } })).status, 201);
  const rule = { name: 'Silencio', kind: 'device_offline', params: { minutes: 3 } };
  t.equal((await g.a.api('POST', '/api/alerts', { body: rule })).status, 201);

  const b = await openBrowser(t, () => g.url);
  const { page, nav } = await signedInSpanish(b, g.url, g.a.token);
  const header = async (table: Locator, columns: readonly string[], what: string) => {
    // The table is drawn once its list has loaded, after the heading: wait for it, then count.
    await table.getByRole('columnheader', { name: columns[0] ?? '', exact: true }).waitFor();
    for (const column of columns)
      t.equal(await countShown(table.getByRole('columnheader', { name: column, exact: true })), 1, `${what}: column ${column}`);
  };

  // Alerts: the seeded rule in words, a rule created and deleted with the form.
  await nav('Alertas');
  await page.getByRole('heading', { name: 'Alertas', level: 1 }).waitFor();
  const rules = page.getByRole('table', { name: 'Reglas de alerta' });
  await header(rules, ['Nombre', 'Condición', 'Webhook', 'Abiertas ahora'], 'es alerts');
  const seeded = rules.getByRole('row').filter({ hasText: 'Silencio' });
  t.equal(await seeded.getByRole('cell').nth(1).innerText(), 'Terminal sin conexión (minutos 3)', 'es: the condition in words');
  t.equal(await seeded.locator('td.incidents').innerText(), 'ninguna', 'es: no open incident');
  const form = page.getByRole('form', { name: 'Nueva regla de alerta' });
  await form.getByLabel('Nombre').fill('Almacenamiento');
  await form.getByLabel('Condición').selectOption('storage_high');
  t.equal(await form.getByLabel('Condición').locator('option:checked').innerText(), 'Almacenamiento del terminal casi lleno');
  t.equal(await form.getByLabel('Porcentaje').getAttribute('placeholder'), 'predeterminado', 'es: the parameter and its default');
  t.equal(
    await form
      .getByRole('combobox', { name: /^Webhook/ })
      .locator('option')
      .first()
      .innerText(),
    'ninguno (solo el flujo de eventos)',
  );
  await form.getByRole('button', { name: 'Crear' }).click();
  await page.getByText('Regla de alerta «Almacenamiento» creada.').waitFor();
  await b.axe(t, page, 'alerts (es, light)');
  await page.getByRole('button', { name: 'Eliminar Almacenamiento' }).click();
  await page.getByText('Regla de alerta «Almacenamiento» eliminada.').waitFor();

  // Webhooks: the list, its deliveries (a test, listed with its status), the typed confirmation of a deletion.
  await nav('Webhooks');
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
  const hooks = page.getByRole('table', { name: 'Webhooks' });
  await header(hooks, ['URL', 'Eventos', 'Estado'], 'es webhooks');
  const row = hooks.locator('tr[data-webhook]');
  await row.getByText('Activado', { exact: true }).waitFor();
  t.equal(await countShown(page.getByRole('form', { name: 'Nuevo webhook' }).getByRole('group', { name: 'Eventos' })), 1, 'es: the form');
  await row.getByRole('button', { name: 'Entregas' }).click();
  const deliveries = page.getByRole('region', { name: `Entregas a ${hook}` });
  await deliveries.getByText('Ninguna entrega en los últimos 7 días.').waitFor();
  await deliveries.getByRole('button', { name: 'Enviar una prueba' }).click();
  await deliveries.getByText('Prueba en cola: aparece abajo con su resultado.').waitFor();
  const sent = deliveries.getByRole('table', { name: `Entregas a ${hook}, las más recientes primero` });
  await sent.locator('tbody tr').first().getByText('✓ Entregada', { exact: true }).waitFor({ timeout: 15_000 });
  await header(sent, ['Evento', 'Estado', 'Intentos', 'Respuesta', 'Próximo intento'], 'es deliveries');
  t.match(await sent.getByRole('columnheader').first().innerText(), /^Creada \(.+\)$/, 'es: created, in the zone');
  await deliveries.getByRole('button', { name: 'Reenviar las fallidas (últimas 24 horas)' }).click();
  await deliveries.getByText('Ninguna entrega fallida en las últimas 24 horas.').waitFor();
  for (const theme of ['light', 'dark'] as const) {
    await page.getByLabel('Tema').selectOption(theme);
    await b.axe(t, page, `webhooks (es, ${theme})`);
  }
  await page.getByLabel('Tema').selectOption('light');
  await row.getByRole('button', { name: `Eliminar el webhook a ${hook}` }).click();
  const dialog = page.getByRole('dialog', { name: '¿Eliminar este webhook?' });
  await dialog.getByText(`${hook} ya no recibe eventos y su historial de entregas se elimina con él.`).waitFor();
  t.equal(await countShown(dialog.getByLabel('Escriba eliminar para confirmar')), 1, 'es: the typed word');
  t.equal(await dialog.getByRole('button', { name: 'Eliminar webhook' }).isDisabled(), true, 'es: not before it is typed');
  await b.axe(t, page, 'webhooks, deleting (es)');
  await dialog.getByRole('button', { name: 'Cancelar' }).click();
  await dialog.waitFor({ state: 'hidden' });

  // History: columns, who made the change, the record filter and its empty state.
  await nav('Historial');
  await page.getByRole('heading', { name: 'Historial', level: 1 }).waitFor();
  const changes = page.getByRole('table', { name: 'Cambios' });
  await header(changes, ['Cuándo', 'Quién', 'Qué', 'Cambios'], 'es history');
  t.match(await changes.locator('tr[data-action="user.created"] td').nth(1).innerText(), /^token \d+ \(initial\)$/, 'es: who');
  t.equal(await page.getByLabel('Registros').locator('option[value="access_level"]').innerText(), 'nivel de acceso');
  await page.getByLabel('Registros').selectOption('holiday');
  await page.getByText('No hay cambios registrados.').waitFor();
  await b.axe(t, page, 'history (es)');

  // Scenarios: the lockdown banner released here; an evacuation started from the Commands page.
  t.equal((await g.a.api('POST', '/api/scenarios/lockdown')).status, 201);
  await nav('Comandos');
  const lockdown = page.getByRole('alert').filter({ hasText: 'Bloqueo en vigor' });
  await lockdown.waitFor();
  t.match(await lockdown.innerText(), /horarios de apertura normal están suspendidos\s+desde \d/, 'es: the banner');
  await b.axe(t, page, 'lockdown banner (es)');
  await lockdown.getByRole('button', { name: 'Levantar el bloqueo' }).click();
  await page.locator('.scenario').waitFor({ state: 'detached' });
  const controls = page.getByRole('region', { name: 'Todas las puertas a la vez' });
  await controls.getByRole('button', { name: 'Evacuar: abrir todas las puertas' }).click();
  const evacuate = page.getByRole('dialog', { name: 'Evacuar: abrir todas las puertas' });
  await evacuate.getByText(/^Cada terminal que lo admite abre sus puertas/).waitFor();
  await evacuate.getByLabel('Escriba EVACUAR para confirmar').fill('EVACUAR');
  await evacuate.getByRole('button', { name: 'Evacuar: abrir todas las puertas' }).click();
  await controls.getByText(/^Evacuación iniciada: comando \d+ en cola para 1 terminal\.$/).waitFor();
  await page.getByRole('alert').filter({ hasText: 'Evacuación en vigor: las puertas están abiertas' }).waitFor();
  t.match(await g.a.api('GET', '/api/me'), { body: { scenario: { name: 'evacuate' } } }, 'in force for the API');

  // Vietnamese: the same pages after the header's switch.
  await page.getByLabel('Idioma').selectOption('vi');
  await page.getByRole('region', { name: 'Mọi cửa cùng lúc' }).waitFor();
  const banner = page.getByRole('alert').filter({ hasText: 'Đang sơ tán: các cửa đang mở' });
  t.equal(await countShown(banner.getByRole('button', { name: 'Kết thúc sơ tán' })), 1, 'vi: the banner');
  await b.axe(t, page, 'commands, evacuating (vi)');

  await nav('Cảnh báo');
  await page.getByRole('heading', { name: 'Cảnh báo', level: 1 }).waitFor();
  const viRules = page.getByRole('table', { name: 'Quy tắc cảnh báo' });
  await header(viRules, ['Tên', 'Điều kiện', 'Webhook', 'Đang mở'], 'vi alerts');
  t.equal(
    await viRules.getByRole('row').filter({ hasText: 'Silencio' }).getByRole('cell').nth(1).innerText(),
    'Thiết bị ngoại tuyến (số phút 3)',
  );
  t.equal(
    await countShown(page.getByRole('form', { name: 'Quy tắc cảnh báo mới' }).getByRole('button', { name: 'Tạo' })),
    1,
    'vi: the form',
  );
  await b.axe(t, page, 'alerts (vi)');

  await nav('Webhook');
  await page.getByRole('heading', { name: 'Webhook', level: 1 }).waitFor();
  const viHooks = page.getByRole('table', { name: 'Webhook' });
  await header(viHooks, ['URL', 'Sự kiện', 'Trạng thái'], 'vi webhooks');
  await viHooks.locator('tr[data-webhook]').getByText('Đang bật', { exact: true }).waitFor();
  await viHooks.getByRole('button', { name: 'Lượt gửi' }).click();
  const viDeliveries = page.getByRole('region', { name: `Lượt gửi tới ${hook}` });
  await viDeliveries.locator('tbody tr').first().getByText('✓ Đã gửi', { exact: true }).waitFor();
  t.equal(await countShown(viDeliveries.getByRole('button', { name: 'Gửi thử' })), 1, 'vi: send a test');
  await page.getByLabel('Giao diện').selectOption('dark');
  await b.axe(t, page, 'webhooks (vi, dark)');
  await page.getByLabel('Giao diện').selectOption('light');

  await nav('Lịch sử');
  await page.getByRole('heading', { name: 'Lịch sử', level: 1 }).waitFor();
  await page.getByLabel('Bản ghi').selectOption('');
  await header(page.getByRole('table', { name: 'Thay đổi' }), ['Khi nào', 'Ai', 'Cái gì', 'Thay đổi'], 'vi history');
  t.equal(await page.getByLabel('Bản ghi').locator('option[value="user"]').innerText(), 'người dùng');
  await b.axe(t, page, 'history (vi)');
  t.same(page.problems, [], 'no off-site request, CSP violation or script error');
});
