/**
 * The attendance pages in Spanish and Vietnamese, in Chromium against the real app: Attendance (a voided record, the
 * CSV export's notice), Time cards (plural and singular counts, an incomplete day), Doors and alarms (kinds, an empty
 * kind) and Access levels (count, the form's check, the delete confirmation); axe-core clean in both themes and in
 * both languages.
 */
import t from 'tap';
import type { Page } from 'playwright-core';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import type { NewAttendance } from '../../src/store/ports/index.js';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { countShown, signedInSpanish } from './pages.js';

const DAY = '2026-03-02';
const SN = 'IDIOMA-ATT';
const punch = (locationId: number, pin: string, time: string, status: number): NewAttendance => ({
  location_id: locationId,
  sn: SN,
  pin,
  user_id: null,
  timestamp: `${DAY}T${time}.000Z`,
  local_time: `${DAY} ${time}`,
  status,
  verify: 1,
  work_code: null,
});

/** The table's column headers, in order. */
const headers = (page: Page, caption: string) => page.getByRole('table', { name: caption }).getByRole('columnheader').allInnerTexts();

t.test('attendance, time cards, doors and access levels in Spanish and Vietnamese', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t);
  const { a } = g;
  const store = (await a.api<{ id: number }>('POST', '/api/areas', { body: { name: 'Almacén' } })).body.id;
  t.equal((await a.api('POST', '/api/users', { body: { pin: 11, first_name: 'Ada', areas: [store] } })).status, 201);
  t.equal((await a.api('POST', '/api/users', { body: { pin: 12, first_name: 'Bo' } })).status, 201);
  t.equal((await a.api('POST', '/api/devices', { body: { sn: SN, name: 'Entrada' } })).status, 201);
  const level = await a.api<{ id: number }>('POST', '/api/access-levels', {
    body: { name: 'Oficina', schedule_id: 1, doors: [1, 3], area_id: null },
  });
  t.equal(level.status, 201, 'an access level');
  await g.started.app.store.attendance.record(
    [
      punch(a.id, '11', '08:00:00', 0),
      punch(a.id, '11', '16:45:00', 1),
      punch(a.id, '12', '09:00:00', 0),
      punch(a.id, '13', '10:00:00', 0),
    ],
    new Date().toISOString(),
  );
  const voided = (await a.api<{ data: { id: number }[] }>('GET', '/api/attendance?pin=13')).body.data[0]?.id;
  t.equal((await a.api('POST', `/api/attendance/${voided}/void`, { body: { reason: 'prueba' } })).status, 200, 'a record voided');

  const sim = createSimulatedDevice({ url: g.url, sn: SN, protocol: 'v3', requestTimeoutMs: 10_000 });
  t.teardown(() => sim.stop());
  await sim.handshake();
  for (const line of [
    'time=2026-03-01 09:00:05\tpin=11\tcardno=0\teventaddr=1\tevent=0\tinoutstatus=1\tverifytype=15\tindex=12',
    'time=2026-03-01 09:01:00\tpin=0\tcardno=0\teventaddr=2\tevent=102\tinoutstatus=0\tverifytype=0\tindex=14',
  ]) {
    const res = await fetch(`${g.url}/iclock/cdata?SN=${SN}&table=rtlog`, {
      method: 'POST',
      headers: { cookie: `token=${sim.session().token ?? ''}`, 'content-type': 'text/plain' },
      body: `${line}\n`,
    });
    t.equal(res.status, 200, 'a door event');
  }

  const b = await openBrowser(t, () => g.url);
  const { page, nav } = await signedInSpanish(b, g.url, a.token);
  const days = async (from: string, to: string, filter: string) => {
    await page.getByLabel(from).fill(DAY);
    await page.getByLabel(to).fill(DAY);
    await page.getByRole('button', { name: filter, exact: true }).click();
  };

  // Attendance (es): the filter, the count, the columns, a voided record, the export's notice.
  await nav('Asistencia');
  await page.getByRole('heading', { name: 'Asistencia', level: 1 }).waitFor();
  await page.getByText('Horas y fechas en la zona horaria de la sede, UTC.').waitFor();
  await page.getByText('En vivo: los marcajes nuevos aparecen arriba.').waitFor();
  t.equal(await countShown(page.getByLabel('N.º de serie del terminal')), 1, 'es: the serial field');
  await days('Desde (día)', 'Hasta (día)', 'Filtrar');
  await page.getByText('4 registros.').waitFor();
  const records = 'Registros de asistencia, los más recientes primero';
  t.same(await headers(page, records), ['Hora (UTC)', 'Persona', 'Terminal', 'Estado', 'Verificado por'], 'es: attendance columns');
  await page.locator(`tr[data-id="${voided}"]`).getByText('(anulado)').waitFor();
  await page.getByLabel('PIN', { exact: true }).fill('12');
  await page.getByRole('button', { name: 'Filtrar', exact: true }).click();
  await page.getByText('1 registro.').waitFor();
  await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Exportar CSV' }).click()]);
  await page.getByText(/^Guardado \S+\.csv \(\d+ bytes\)\.$/).waitFor();
  await b.axe(t, page, 'attendance (es, light)');

  // Time cards (es): plural and singular counts, the columns, an incomplete day, the area filter.
  await nav('Tarjetas de horas');
  await page.getByRole('heading', { name: 'Tarjetas de horas', level: 1 }).waitFor();
  t.match(
    await page.locator('p.lead').first().innerText(),
    /El día empieza a las 00:00; un marcaje a menos de 60 s del anterior es una repetición/,
    'es: the location’s settings',
  );
  await days('Desde (día)', 'Hasta (día)', 'Filtrar');
  await page.getByText('2 tarjetas de horas.').waitFor();
  t.same(
    await headers(page, 'Tarjetas de horas, por día y luego por PIN'),
    ['Día', 'PIN', 'Nombre', 'Primera entrada', 'Última salida', 'Trabajado', 'Marcajes', 'Nota'],
    'es: time card columns',
  );
  t.equal(
    await page.locator(`tr[data-card="${DAY}:12"] td.note`).innerText(),
    'Incompleta: falta una entrada o una salida',
    'es: incomplete',
  );
  t.equal(await page.getByLabel('Área').locator('option').first().innerText(), 'Todas las áreas', 'es: every area');
  await page.getByLabel('Área').selectOption({ label: 'Almacén' });
  await page.getByRole('button', { name: 'Filtrar', exact: true }).click();
  await page.getByText('1 tarjeta de horas.').waitFor();
  await b.axe(t, page, 'time cards (es, light)');

  // Doors and alarms (es): the kinds in words, an empty kind; dark theme.
  await nav('Puertas');
  await page.getByRole('heading', { name: 'Puertas y alarmas', level: 1 }).waitFor();
  await page.getByText('En vivo: los eventos nuevos aparecen arriba.').waitFor();
  const doorEvents = 'Eventos de puertas y alarmas';
  await page.getByRole('table', { name: doorEvents }).getByText('Alarma', { exact: true }).waitFor();
  t.same(await headers(page, doorEvents), ['Hora', 'Terminal', 'Puerta', 'Tipo', 'Qué', 'PIN o tarjeta'], 'es: door columns');
  t.same(
    await page.getByLabel('Tipo').locator('option').allInnerTexts(),
    ['Todos los tipos', 'Alarmas', 'Errores', 'Normales', 'Estados de puerta'],
    'es: the kinds',
  );
  await page.getByLabel('Tipo').selectOption('error');
  await page.getByText('Todavía no hay eventos de puertas de este tipo.').waitFor();
  await page.getByLabel('Tipo').selectOption('');
  await page.getByRole('table', { name: doorEvents }).waitFor();
  await page.getByLabel('Tema').selectOption('dark');
  await b.axe(t, page, 'doors (es, dark)');

  // Access levels (es): the count, the columns, the form and its check, the delete confirmation.
  await nav('Niveles de acceso');
  await page.getByRole('heading', { name: 'Niveles de acceso', level: 1 }).waitFor();
  await page.getByText('1 nivel de acceso.').waitFor();
  t.same(await headers(page, 'Niveles de acceso'), ['Nombre', 'Horario', 'Puertas', 'Área', 'Acciones'], 'es: level columns');
  const row = page.locator(`tr[data-level="${level.body.id}"]`);
  t.equal(await row.locator('td.area').innerText(), 'Todos los terminales', 'es: every terminal');
  await page.getByRole('button', { name: 'Nuevo nivel de acceso' }).click();
  const form = page.getByRole('form', { name: 'Nuevo nivel de acceso' });
  await form.getByLabel('Nombre').fill('Muelle');
  t.equal(await countShown(form.getByRole('checkbox', { name: 'Puerta 4' })), 1, 'es: the doors');
  t.equal(await form.getByLabel('Área').locator('option').first().innerText(), 'Todos los terminales', 'es: every terminal');
  await form.getByRole('button', { name: 'Guardar' }).click();
  await form.getByText('Elija al menos una puerta.').waitFor();
  await b.axe(t, page, 'access levels, form (es, dark)');
  await form.getByRole('button', { name: 'Cancelar' }).click();
  await form.waitFor({ state: 'hidden' });
  await row.locator('td.row-actions button').nth(1).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByText('Los usuarios con este nivel lo pierden y se sincronizan de nuevo.', { exact: false }).waitFor();
  await dialog.getByRole('button', { name: 'Cancelar' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.getByLabel('Tema').selectOption('light');
  await b.axe(t, page, 'access levels (es, light)');

  // Vietnamese, switched in place on Access levels, then the other pages.
  await page.getByLabel('Idioma').selectOption('vi');
  await page.getByRole('heading', { name: 'Cấp truy cập', level: 1 }).waitFor();
  await page.getByText('1 cấp truy cập.').waitFor();
  t.same(await headers(page, 'Cấp truy cập'), ['Tên', 'Lịch', 'Cửa', 'Khu vực', 'Thao tác'], 'vi: level columns');
  t.equal(await row.locator('td.area').innerText(), 'Mọi thiết bị', 'vi: every terminal');
  await b.axe(t, page, 'access levels (vi)');

  await nav('Chấm công');
  await page.getByRole('heading', { name: 'Chấm công', level: 1 }).waitFor();
  await page.getByText('Trực tiếp: lượt chấm công mới hiện ở trên cùng.').waitFor();
  await days('Từ (ngày)', 'Đến (ngày)', 'Lọc');
  await page.getByText('4 bản ghi.').waitFor();
  t.same(
    await headers(page, 'Bản ghi chấm công, mới nhất trước'),
    ['Thời gian (UTC)', 'Người', 'Thiết bị', 'Trạng thái', 'Xác thực bằng'],
    'vi: attendance columns',
  );
  await page.locator(`tr[data-id="${voided}"]`).getByText('(đã hủy)').waitFor();
  await b.axe(t, page, 'attendance (vi)');

  await nav('Bảng công');
  await page.getByRole('heading', { name: 'Bảng công', level: 1 }).waitFor();
  await days('Từ (ngày)', 'Đến (ngày)', 'Lọc');
  await page.getByText('2 bảng công.').waitFor();
  t.equal(await page.locator(`tr[data-card="${DAY}:12"] td.note`).innerText(), 'Chưa đủ: thiếu giờ vào hoặc giờ ra', 'vi: incomplete');
  await b.axe(t, page, 'time cards (vi)');

  await nav('Cửa');
  await page.getByRole('heading', { name: 'Cửa và báo động', level: 1 }).waitFor();
  await page.getByRole('table', { name: 'Sự kiện cửa và báo động' }).getByText('Báo động', { exact: true }).waitFor();
  t.same(
    await headers(page, 'Sự kiện cửa và báo động'),
    ['Thời gian', 'Thiết bị', 'Cửa', 'Loại', 'Nội dung', 'PIN hoặc thẻ'],
    'vi: door columns',
  );
  await page.getByLabel('Giao diện').selectOption('dark');
  await b.axe(t, page, 'doors (vi, dark)');
  await b.shot(page, 'doors-vi');
  t.same(page.problems, [], 'no off-site request, CSP violation or script error');
});
