/**
 * The access pages in Spanish and Vietnamese: Areas (create, count, columns, the typed delete confirmation and the
 * refusal while a terminal is in the area), a terminal's area on its device page, and Schedules (the week summed up
 * with the language's day names, the form's labels and its own checks, deleting); then the header's switch gives
 * Vietnamese and the same pages follow. The record pages' shared messages format with each language's plurals.
 * axe-core clean in both languages and both themes.
 */
import { IntlMessageFormat } from 'intl-messageformat';
import t from 'tap';
import { CATALOGS } from '../../src/console/web/src/i18n/catalogs.js';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { countShown, signedInSpanish } from './pages.js';

const SN = 'ZONA-1';
const AREA = 'Almacén';
const SCHEDULE = 'Oficina';

t.test('the record pages’ shared messages in each language', async (t) => {
  const count = (language: 'en' | 'es' | 'vi', n: number) =>
    new IntlMessageFormat(CATALOGS[language]['records.count'], language).format({ n, one: 'nivel', many: 'niveles' });
  t.equal(count('en', 1), '1 nivel.');
  t.equal(count('en', 0), '0 niveles.');
  t.equal(count('es', 1), '1 nivel.');
  t.equal(count('es', 3), '3 niveles.');
  t.equal(count('vi', 3), '3 niveles.', 'Vietnamese: one form, whatever the number');
  const lead = new IntlMessageFormat(CATALOGS.en['areas.lead'], 'en').format();
  t.match(lead, /choose a terminal's area on its device page\.$/, 'the English apostrophe is kept');
  const confirm = new IntlMessageFormat(CATALOGS.es['records.confirm'], 'es').format({ action: 'Desactivar', noun: 'sede', name: 'Norte' });
  t.equal(confirm, '¿Desactivar sede «Norte»?');
});

t.test('areas and schedules in Spanish, then in Vietnamese', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t);
  const api = g.a.api;
  t.equal((await api('POST', '/api/devices', { body: { sn: SN, name: 'Muelle' } })).status, 201, 'a terminal');
  t.equal((await api('POST', '/api/areas', { body: { name: AREA } })).status, 201, 'an area');
  const office = { name: SCHEDULE, days: { mon: [{ start: '08:00', end: '12:00' }], tue: [{ start: '08:00', end: '12:00' }] } };
  t.equal((await api('POST', '/api/schedules', { body: office })).status, 201, 'a schedule');

  const b = await openBrowser(t, () => g.url);
  const { page, nav } = await signedInSpanish(b, g.url, g.a.token);

  // Areas: the count, a new one, the columns, the typed confirmation of deleting it.
  await nav('Áreas');
  await page.getByRole('heading', { name: 'Áreas', level: 1 }).waitFor();
  await page.getByText('1 área.', { exact: true }).waitFor();
  await page.getByText('Un terminal sin área recibe todos los usuarios activos.', { exact: false }).waitFor();
  const create = page.getByRole('form', { name: 'Nueva área' });
  await create.getByLabel('Nombre').fill('Patio');
  await create.getByRole('button', { name: 'Crear' }).click();
  await page.getByText('Área «Patio» creada.').waitFor();
  await page.getByText('2 áreas.', { exact: true }).waitFor();
  const areas = page.getByRole('table', { name: 'Áreas' });
  for (const column of ['Nombre', 'Terminales', 'Usuarios', 'Acciones'])
    t.equal(await countShown(areas.getByRole('columnheader', { name: column, exact: true })), 1, `es: column ${column}`);
  t.equal(await page.getByRole('button', { name: `Renombrar el área ${AREA}` }).innerText(), 'Renombrar', 'es: the rename button');
  await page.getByRole('button', { name: 'Eliminar el área Patio' }).click();
  const dialog = page.getByRole('dialog', { name: '¿Eliminar el área «Patio»?' });
  await dialog.getByText('No se puede eliminar un área que tiene terminales').waitFor();
  t.equal(await dialog.getByRole('button', { name: 'Eliminar' }).isDisabled(), true, 'es: not before the name is typed');
  await b.axe(t, page, 'areas, deleting (es)');
  await dialog.getByLabel('Escriba Patio para confirmar').fill('Patio');
  await dialog.getByRole('button', { name: 'Eliminar' }).click();
  await page.getByText('Área «Patio» eliminada.').waitFor();
  await page.getByText('1 área.', { exact: true }).waitFor();
  for (const theme of ['light', 'dark'] as const) {
    await page.getByLabel('Tema').selectOption(theme);
    await b.axe(t, page, `areas (es, ${theme})`);
  }
  await page.getByLabel('Tema').selectOption('light');

  // The terminal's area on its device page.
  await page.goto(`${g.url}/console/devices/${SN}`);
  await page.getByRole('heading', { name: 'Muelle', level: 1 }).waitFor();
  const section = page.getByRole('region', { name: 'Área', exact: true });
  const shown = section.locator('.device-area');
  await shown.waitFor();
  t.equal(await shown.innerText(), 'Sin área: recibe todos los usuarios activos.', 'es: no area');
  const select = section.getByRole('combobox', { name: 'Área' });
  t.equal(await select.locator('option').first().innerText(), 'Sin área (todos los usuarios)', 'es: the no-area option');
  t.equal(await section.getByRole('button', { name: 'Guardar el área' }).isDisabled(), true, 'es: nothing to save');
  await select.selectOption({ label: AREA });
  await section.getByRole('button', { name: 'Guardar el área' }).click();
  await section.getByText(`Movido al área «${AREA}».`).waitFor();
  t.equal(await shown.innerText(), `En el área ${AREA}: recibe solo los usuarios a los que se asignó esta área.`, 'es: in the area');
  await b.axe(t, page, 'device area (es)');

  // Deleting the area is refused, in Spanish, while the terminal is in it.
  await nav('Áreas');
  await page.getByRole('button', { name: `Eliminar el área ${AREA}` }).click();
  const refuse = page.getByRole('dialog', { name: `¿Eliminar el área «${AREA}»?` });
  await refuse.getByLabel(`Escriba ${AREA} para confirmar`).fill(AREA);
  await refuse.getByRole('button', { name: 'Eliminar' }).click();
  const alert = page.getByRole('alert').filter({ hasText: 'no se eliminó' });
  await alert.waitFor();
  t.equal(
    await alert.innerText(),
    `«${AREA}» no se eliminó: todavía hay terminales en esta área. Mueva cada uno a otra área, o a «Sin área (todos los usuarios)», ` +
      'en su página de terminal, y luego elimine el área.',
    'es: the refusal says why and what to do',
  );

  // Schedules: the week in Spanish day names, the form, its check, deleting.
  await nav('Horarios');
  await page.getByRole('heading', { name: 'Horarios', level: 1 }).waitFor();
  await page.getByText('2 horarios.', { exact: true }).waitFor();
  const schedules = page.getByRole('table', { name: 'Horarios' });
  for (const column of ['Nombre', 'Cuándo', 'Acciones'])
    t.equal(await countShown(schedules.getByRole('columnheader', { name: column, exact: true })), 1, `es: column ${column}`);
  const always = page.locator('tr[data-schedule="1"]');
  t.equal(await always.locator('td.when').innerText(), 'lun–dom, festivo 1–3 00:00–23:59', 'es: "Always" summed up');
  t.match(await always.innerText(), /Incluido: no se puede cambiar/, 'es: built in');
  const mine = schedules.getByRole('row').filter({ hasText: SCHEDULE });
  t.equal(await mine.locator('td.when').innerText(), 'lun–mar 08:00–12:00', 'es: the seeded schedule summed up');
  await page.getByRole('button', { name: 'Nuevo horario' }).click();
  const form = page.getByRole('form', { name: 'Nuevo horario' });
  const grid = form.getByRole('table', { name: 'Intervalos' });
  for (const column of ['Día', 'Intervalo 1', 'Intervalo 3'])
    t.equal(await countShown(grid.getByRole('columnheader', { name: column, exact: true })), 1, `es: form column ${column}`);
  t.equal(await countShown(grid.getByRole('rowheader', { name: 'Festivo de tipo 2' })), 1, 'es: a holiday type');
  await form.getByLabel('Nombre').fill('Tarde');
  await form.getByLabel('Lunes, intervalo 1, inicio', { exact: true }).fill('12:00');
  await form.getByLabel('Lunes, intervalo 1, fin', { exact: true }).fill('08:30');
  await form.getByRole('button', { name: 'Guardar' }).click();
  await form.getByRole('alert').filter({ hasText: 'Lunes, intervalo 1: el inicio debe ser anterior al fin.' }).waitFor();
  t.equal(await countShown(form.getByRole('button', { name: 'Copiar el lunes de martes a viernes' })), 1, 'es: copy Monday');
  await page.getByLabel('Tema').selectOption('dark');
  await b.axe(t, page, 'schedules, form (es, dark)');
  await page.getByLabel('Tema').selectOption('light');
  await form.getByRole('button', { name: 'Cancelar' }).click();
  await page.getByRole('button', { name: `Eliminar el horario ${SCHEDULE}` }).click();
  const drop = page.getByRole('dialog', { name: `¿Eliminar el horario «${SCHEDULE}»?` });
  await drop.getByText('No se puede eliminar un horario que indica un nivel de acceso').waitFor();
  await drop.getByLabel(`Escriba ${SCHEDULE} para confirmar`).fill(SCHEDULE);
  await drop.getByRole('button', { name: 'Eliminar' }).click();
  await page.getByText(`Horario «${SCHEDULE}» eliminado.`).waitFor();
  await page.getByText('1 horario.', { exact: true }).waitFor();
  await b.axe(t, page, 'schedules (es)');

  // Vietnamese, from the header's switch: the same pages follow at once.
  await page.getByLabel('Idioma', { exact: true }).selectOption('vi');
  await page.getByRole('heading', { name: 'Lịch', level: 1 }).waitFor();
  await page.getByText('1 lịch.', { exact: true }).waitFor();
  t.equal(await always.locator('td.when').innerText(), 'T2–CN, Ngày lễ 1–3 00:00–23:59', 'vi: "Always" summed up');
  t.match(await always.innerText(), /Có sẵn: không thể thay đổi/, 'vi: built in');
  for (const column of ['Tên', 'Thời gian', 'Thao tác'])
    t.equal(
      await countShown(page.getByRole('table', { name: 'Lịch' }).getByRole('columnheader', { name: column, exact: true })),
      1,
      `vi: ${column}`,
    );
  await page.getByRole('button', { name: 'Lịch mới' }).click();
  const viForm = page.getByRole('form', { name: 'Lịch mới' });
  await viForm.getByLabel('Chủ Nhật, khoảng 3, kết thúc', { exact: true }).fill('18:00');
  await viForm.getByLabel('Tên').fill('Chiều');
  await viForm.getByRole('button', { name: 'Lưu' }).click();
  await viForm
    .getByRole('alert')
    .filter({ hasText: 'Chủ Nhật, khoảng 3: hãy nhập cả giờ bắt đầu và giờ kết thúc, hoặc để trống cả hai.' })
    .waitFor();
  await b.axe(t, page, 'schedules, form (vi)');
  await viForm.getByRole('button', { name: 'Hủy' }).click();

  await nav('Khu vực');
  await page.getByRole('heading', { name: 'Khu vực', level: 1 }).waitFor();
  await page.getByText('1 khu vực.', { exact: true }).waitFor();
  for (const column of ['Tên', 'Thiết bị', 'Người dùng', 'Thao tác'])
    t.equal(
      await countShown(page.getByRole('table', { name: 'Khu vực' }).getByRole('columnheader', { name: column, exact: true })),
      1,
      `vi: ${column}`,
    );
  await page.getByRole('button', { name: `Đổi tên khu vực ${AREA}` }).click();
  await page
    .getByRole('form', { name: `Đổi tên khu vực “${AREA}”` })
    .getByLabel('Tên')
    .waitFor();
  await b.axe(t, page, 'areas (vi)');
  await page.getByLabel('Giao diện').selectOption('dark');
  await b.axe(t, page, 'areas (vi, dark)');
  await page.getByLabel('Giao diện').selectOption('light');

  await page.goto(`${g.url}/console/devices/${SN}`);
  const viSection = page.getByRole('region', { name: 'Khu vực', exact: true });
  await viSection.locator('.device-area').waitFor();
  t.equal(
    await viSection.locator('.device-area').innerText(),
    `Thuộc khu vực ${AREA}: chỉ nhận những người dùng được gán khu vực này.`,
    'vi: in the area',
  );
  await viSection.getByRole('combobox', { name: 'Khu vực' }).selectOption({ label: 'Không có khu vực (mọi người dùng)' });
  await viSection.getByRole('button', { name: 'Lưu khu vực' }).click();
  await viSection.getByText('Đã đưa ra khỏi khu vực: thiết bị nhận mọi người dùng đang hoạt động.').waitFor();
  t.equal(await viSection.locator('.device-area').innerText(), 'Không có khu vực: nhận mọi người dùng đang hoạt động.', 'vi: no area');
  await b.axe(t, page, 'device area (vi)');
  await b.shot(page, 'device-area-vi');

  t.same(page.problems, [], 'no off-site request, CSP violation or script error');
});
