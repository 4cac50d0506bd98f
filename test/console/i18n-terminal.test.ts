/**
 * A terminal's page in Spanish and Vietnamese, in a real browser against the real app: its roster sync section (owed
 * PINs, "Audit now" and its notice), its access (levels that apply, doors, the door form), its exchanges (empty, then a
 * simulated terminal's), the "Send a command" form with its typed confirmation, and the preset buttons; axe-core clean in
 * both themes and both languages.
 */
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { countShown, signedInSpanish } from './pages.js';

const SN = 'IDIOMA-T1';

t.test('a terminal’s sections in Spanish, then Vietnamese', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t, { config: { longpollS: 0 } });
  const { url } = g;
  const api = g.a.api;
  const created = async (path: string, body: unknown) => {
    const r = await api<{ id: number }>('POST', path, { body });
    t.equal(r.status, 201, `POST ${path}`);
    return r.body.id;
  };
  const hall = await created('/api/areas', { name: 'Vestíbulo' });
  t.equal((await api('POST', '/api/devices', { body: { sn: SN, name: 'Recepción', area_id: hall } })).status, 201, 'a terminal');
  const hours = await created('/api/schedules', { name: 'Horario de oficina', days: { mon: [{ start: '08:00', end: '18:00' }] } });
  await created('/api/access-levels', { name: 'Todos, entrada', schedule_id: 1, doors: [1], area_id: null });
  await created('/api/access-levels', { name: 'Personal del vestíbulo', schedule_id: hours, doors: [1], area_id: hall });
  for (const pin of [1, 2]) await created('/api/users', { pin, first_name: `Persona${pin}`, areas: [hall] });

  const b = await openBrowser(t, () => url);
  const { page } = await signedInSpanish(b, url, g.a.token);
  await page.goto(`${url}/console/devices/${SN}`);
  await page.getByRole('heading', { name: 'Recepción', level: 1 }).waitFor();

  await t.test('es: the preset buttons and the exchanges, empty then a terminal’s', async (t) => {
    for (const label of ['Abrir puerta', 'Desbloquear puerta', 'Reiniciar', 'Obtener información', 'Sincronizar usuarios'])
      t.equal(await countShown(page.getByRole('button', { name: label, exact: true })), 1, `es: preset ${label}`);
    for (const label of ['Borrar registro de asistencia', 'Borrar datos biométricos', 'Borrar todos los datos'])
      t.equal(await countShown(page.getByRole('button', { name: label, exact: true })), 1, `es: risky preset ${label}`);
    const exchanges = page.getByRole('region', { name: 'Intercambios', exact: true });
    await exchanges.getByText('Todavía no hay intercambios.', { exact: true }).waitFor();
    t.match(await exchanges.innerText(), /Las últimas peticiones del terminal y las respuestas de BioGate/, 'es: the lead');

    const sim = createSimulatedDevice({ url, sn: SN, protocol: 'v2', requestTimeoutMs: 10_000, refuseRate: 1 });
    t.teardown(() => sim.stop());
    // The first poll takes the users' lines, which the terminal refuses (-3); the next two are idle, one run.
    await sim.handshake();
    await sim.pollOnce();
    await sim.pollOnce();
    await sim.pollOnce();
    await exchanges.getByRole('button', { name: 'Actualizar' }).click();
    const table = exchanges.getByRole('table', { name: 'Intercambios' });
    await table.waitFor();
    for (const column of ['Cuándo', 'Petición', 'Líneas', 'Respuesta', 'Error'])
      t.equal(await countShown(table.getByRole('columnheader', { name: column, exact: true })), 1, `es: exchanges column ${column}`);
    await table.getByText(/\(×\d+ desde \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\)/).waitFor();
  });

  await t.test('es: the roster sync section, its owed PINs and "Audit now"', async (t) => {
    const sync = page.getByRole('region', { name: 'Sincronización de usuarios', exact: true });
    await sync.getByRole('heading', { name: 'Sincronización de usuarios', level: 2 }).waitFor();
    const missing = sync.getByRole('region', { name: /^Faltan: usuarios que el terminal debería tener, sin confirmar \(\d+\)$/ });
    await page.reload();
    await missing.locator('tr[data-pin="2"]').waitFor();
    t.equal(await countShown(missing.getByRole('columnheader', { name: 'PIN', exact: true })), 1, 'es: PIN column');
    t.equal(await countShown(missing.getByRole('columnheader', { name: 'Pendiente desde', exact: true })), 1, 'es: owed since');
    t.equal(await missing.getByRole('columnheader', { name: 'Código de retorno' }).count(), 0, 'es: no return code for missing users');
    const refused = sync.getByRole('region', { name: 'Rechazadas: líneas que el terminal rechazó (2)', exact: true });
    t.equal(await countShown(refused.getByRole('columnheader', { name: 'Código de retorno', exact: true })), 1, 'es: return code');
    t.match(await refused.locator('tr[data-pin="1"]').innerText(), /-3$/, 'es: PIN 1 refused with -3');
    const extra = sync.getByRole('region', {
      name: 'Sobran: usuarios que el terminal no debería tener, eliminación sin confirmar (0)',
      exact: true,
    });
    t.equal(await countShown(extra.getByText('Ninguno.', { exact: true })), 1, 'es: nothing extra');
    t.equal(
      await countShown(
        sync.getByText('Una auditoría lee la tabla de usuarios del terminal y corrige las diferencias con la lista de usuarios.'),
      ),
      1,
      'es: the audit hint',
    );
    await sync.getByRole('button', { name: 'Auditar ahora' }).click();
    const notice = sync.getByRole('status').filter({ hasText: /^Auditoría (iniciada|terminada)/ });
    await notice.waitFor();
    t.match(
      await notice.innerText(),
      /^Auditoría iniciada: se consulta la tabla de usuarios del terminal \(comando \d+, load-users, pendiente\)\. El terminal responde en su próxima llamada\.$/,
      'es: the audit notice, its status in words',
    );
    t.equal(await countShown(notice.getByRole('link', { name: /^comando \d+$/ })), 1, 'es: the link to the query');
  });

  await t.test('es: the access section and the door form', async (t) => {
    const access = page.getByRole('region', { name: 'Acceso', exact: true });
    const enforces = (await api<{ access_control: { schedules: boolean } }>('GET', `/api/devices/${SN}`)).body.access_control.schedules;
    await access.getByText(enforces ? 'Este terminal aplica horarios' : 'Este terminal no puede aplicar horarios').waitFor();
    t.equal(await countShown(access.getByRole('heading', { name: 'Niveles de acceso que se aplican aquí', level: 3 })), 1);
    const levels = access.getByRole('table', { name: 'Niveles de acceso que se aplican a este terminal' });
    for (const column of ['Nombre', 'Horario', 'Puertas', 'Otorgado por'])
      t.equal(await countShown(levels.getByRole('columnheader', { name: column, exact: true })), 1, `es: levels column ${column}`);
    await levels.getByRole('row').filter({ hasText: 'Todos, entrada' }).getByText('Todos los terminales', { exact: true }).waitFor();
    await levels.getByRole('row').filter({ hasText: 'Personal del vestíbulo' }).getByText('Su área', { exact: true }).waitFor();
    const doors = access.getByRole('table', { name: 'Puertas de este terminal' });
    for (const column of ['Puerta', 'Tiempo de apertura', 'Abierta de forma continua', 'Acciones'])
      t.equal(await countShown(doors.getByRole('columnheader', { name: column, exact: true })), 1, `es: doors column ${column}`);
    const row = doors.locator('tr[data-door="1"]');
    t.equal(await row.locator('td').first().innerText(), 'Puerta 1', 'es: the door');
    t.equal(await row.locator('td.unlock').innerText(), 'Valor del terminal', 'es: terminal default');
    t.equal(await row.locator('td.keep-open').innerText(), 'Nunca', 'es: never kept open');
    await row.getByRole('button', { name: 'Editar la puerta 1' }).click();
    const form = access.getByRole('form', { name: 'Puerta 1' });
    await form.getByLabel('Tiempo de apertura (segundos)').fill('8');
    await form.getByLabel('Abierta de forma continua durante').selectOption({ label: 'Horario de oficina' });
    t.equal(await countShown(form.getByRole('option', { name: 'Nunca' })), 1, 'es: the never option');
    await b.axe(t, page, 'device, door form (es, light)');
    await form.getByRole('button', { name: 'Guardar' }).click();
    await access.getByText(enforces ? 'Puerta 1 guardada: el terminal la recibe.' : 'Puerta 1 guardada.', { exact: true }).waitFor();
    await row.locator('td.unlock', { hasText: '8 s' }).waitFor();
  });

  await t.test('es: "Send a command", a queued one and a risky one’s dialog', async (t) => {
    const form = page.getByRole('form', { name: 'Enviar un comando' });
    await form.getByLabel('Comando').selectOption('info');
    await form.getByRole('button', { name: 'Poner en cola info', exact: true }).click();
    await page.getByText(/^info: comando \d+ en cola \(pendiente\)\.$/).waitFor();
    await form.getByLabel('Comando').selectOption('clear-log');
    await form.getByRole('button', { name: 'Poner en cola clear-log' }).click();
    const dialog = page.getByRole('dialog', { name: `¿clear-log en ${SN}?` });
    await dialog.getByText('Un comando de riesgo: puede borrar datos del terminal o ejecutar lo que usted le indique.').waitFor();
    t.equal(await dialog.getByRole('button', { name: 'Poner en cola clear-log' }).isDisabled(), true, 'es: waits for the serial');
    for (const theme of ['light', 'dark'] as const) {
      await page.getByLabel('Tema').selectOption(theme);
      await b.axe(t, page, `device, risky command (es, ${theme})`);
    }
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  await t.test('vi: the same sections after the switch', async (t) => {
    await page.getByLabel('Idioma', { exact: true }).selectOption('vi');
    for (const heading of ['Đồng bộ người dùng', 'Truy cập', 'Trao đổi', 'Gửi lệnh'])
      await page.getByRole('heading', { name: heading, exact: true, level: 2 }).waitFor();
    for (const label of ['Mở cửa', 'Mở khóa cửa', 'Khởi động lại', 'Lấy thông tin', 'Xóa toàn bộ dữ liệu', 'Kiểm tra ngay'])
      t.equal(await countShown(page.getByRole('button', { name: label, exact: true })), 1, `vi: button ${label}`);
    const sync = page.getByRole('region', { name: 'Đồng bộ người dùng', exact: true });
    t.equal(
      await countShown(
        sync
          .getByRole('region', { name: 'Bị từ chối: các dòng thiết bị đã từ chối (2)', exact: true })
          .getByRole('columnheader', { name: 'Mã trả về' }),
      ),
      1,
      'vi: return code',
    );
    t.equal(
      await countShown(sync.getByRole('region', { name: /^Thừa: / }).getByText('Không có.', { exact: true })),
      1,
      'vi: nothing extra',
    );
    t.match(
      await sync
        .getByRole('status')
        .filter({ hasText: /^Đã bắt đầu kiểm tra/ })
        .innerText(),
      /^Đã bắt đầu kiểm tra: đang truy vấn bảng người dùng của thiết bị \(lệnh \d+, load-users, đang chờ\)\./,
      'vi: the audit notice',
    );
    const access = page.getByRole('region', { name: 'Truy cập', exact: true });
    const doors = access.getByRole('table', { name: 'Các cửa của thiết bị này' });
    for (const column of ['Cửa', 'Thời gian mở khóa', 'Giữ mở', 'Thao tác'])
      t.equal(await countShown(doors.getByRole('columnheader', { name: column, exact: true })), 1, `vi: doors column ${column}`);
    await doors.locator('tr[data-door="1"] td.unlock', { hasText: '8 giây' }).waitFor();
    t.equal(await countShown(doors.getByRole('button', { name: 'Sửa cửa 1' })), 1, 'vi: edit door');
    const levels = access.getByRole('table', { name: 'Cấp truy cập áp dụng cho thiết bị này' });
    t.equal(await countShown(levels.getByText('Mọi thiết bị', { exact: true })), 1, 'vi: every terminal');
    const exchanges = page.getByRole('region', { name: 'Trao đổi', exact: true });
    for (const column of ['Thời điểm', 'Yêu cầu', 'Dòng', 'Phản hồi', 'Lỗi'])
      t.equal(await countShown(exchanges.getByRole('columnheader', { name: column, exact: true })), 1, `vi: exchanges column ${column}`);
    const form = page.getByRole('form', { name: 'Gửi lệnh' });
    await form.getByRole('button', { name: 'Xếp lệnh clear-log' }).click();
    const dialog = page.getByRole('dialog', { name: `clear-log trên ${SN}?` });
    await dialog.getByText(/^Lệnh rủi ro: /).waitFor();
    await b.axe(t, page, 'device, risky command (vi, dark)');
    await dialog.getByRole('button', { name: 'Hủy' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await b.axe(t, page, 'device (vi, dark)');
    await b.shot(page, 'device-terminal-vi');
  });

  t.same(page.problems, [], 'no off-site request, CSP violation or script error');
});
