/**
 * The people pages in Spanish and Vietnamese (issue #38 item 7): the users page (list, counts, search, the user form,
 * activation, the typed confirmation of a delete, the CSV import and its report), the users' bulk bar and the
 * terminals' bulk bar, in a Spanish browser, then switched to Vietnamese; axe-core clean in both themes and languages.
 */
import t from 'tap';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { countShown, signedInSpanish } from './pages.js';

t.test('users and the bulk bars in Spanish and Vietnamese', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t);
  const seed = [
    { pin: 1, first_name: 'Ana', last_name: 'Ruiz', privilege: 14 },
    { pin: 2, first_name: 'Bao' },
    { pin: 3, first_name: 'Chi' },
  ];
  for (const body of seed) t.equal((await g.a.api('POST', '/api/users', { body })).status, 201);
  t.equal((await g.a.api('POST', '/api/devices', { body: { sn: 'PERSONAS1', name: 'Puerta' } })).status, 201);
  const b = await openBrowser(t, () => g.url);
  const { page, nav } = await signedInSpanish(b, g.url, g.a.token);

  // The terminals' bulk bar.
  await nav('Terminales');
  await page.getByRole('heading', { name: 'Terminales', level: 1 }).waitFor();
  const devBar = page.getByRole('toolbar', { name: 'Terminales seleccionados' });
  await devBar.getByText('0 terminales seleccionados', { exact: true }).waitFor();
  await devBar.getByRole('button', { name: 'Seleccionar todos los mostrados' }).click();
  await devBar.getByText('1 terminal seleccionado', { exact: true }).waitFor();
  await devBar.getByLabel('Comando').selectOption({ label: 'Obtener información' });
  await devBar.getByRole('button', { name: 'Poner en cola en los seleccionados' }).click();
  await devBar.getByText('Obtener información en cola: 1 hecho.', { exact: true }).waitFor();
  t.equal(await devBar.getByRole('button', { name: 'Borrar la selección' }).isEnabled(), true, 'es: clear selection');
  await b.axe(t, page, 'devices bulk bar (es, light)');

  // The users page: heading, count, table, search.
  await nav('Usuarios');
  await page.getByRole('heading', { name: 'Usuarios', level: 1 }).waitFor();
  await page.getByText('3 usuarios.', { exact: true }).waitFor();
  const table = page.getByRole('table', { name: 'Usuarios por PIN' });
  for (const column of [
    'Seleccionar',
    'Nombre',
    'Tarjeta',
    'Departamento, cargo',
    'Privilegio',
    'Biometría',
    'Niveles de acceso',
    'Estado',
    'Acciones',
  ])
    t.equal(await countShown(table.getByRole('columnheader', { name: column, exact: true })), 1, `es: column ${column}`);
  const ana = page.locator('tr[data-pin="1"]');
  for (const cell of ['administrador', 'ninguna', 'activo'])
    t.equal(await countShown(ana.getByText(cell, { exact: true })), 1, `es: ${cell}`);
  await page.getByLabel('Buscar por nombre o PIN').fill('Ana');
  await page.getByRole('button', { name: 'Buscar', exact: true }).click();
  await page.getByText('1 usuario coincide con «Ana».', { exact: true }).waitFor();
  await page.getByLabel('Buscar por nombre o PIN').fill('');
  await page.getByRole('button', { name: 'Buscar', exact: true }).click();
  await page.getByText('3 usuarios.', { exact: true }).waitFor();

  // The form: a new user, then deactivated from its row; the delete's typed confirmation.
  await page.getByRole('button', { name: 'Nuevo usuario' }).click();
  const form = page.getByRole('form', { name: 'Nuevo usuario' });
  await form.getByLabel('PIN', { exact: true }).fill('9');
  await form.getByLabel('Nombre', { exact: true }).fill('Carmen');
  await form.getByLabel('Apellidos').fill('Vidal');
  t.equal(await countShown(form.getByLabel('Número de tarjeta')), 1, 'es: card number');
  for (const label of ['Departamento', 'Cargo'])
    t.equal(await countShown(form.getByLabel(label, { exact: true })), 1, `es: form field ${label}`);
  await form.getByLabel('Privilegio').selectOption({ label: 'gestor' });
  t.equal(await form.getByLabel('Activo', { exact: true }).isChecked(), true, 'es: active by default');
  await form.getByRole('button', { name: 'Guardar' }).click();
  await page.getByText('Usuario 9 guardado.', { exact: true }).waitFor();
  t.match((await g.a.api('GET', '/api/users/9')).body, { first_name: 'Carmen', privilege: 6 }, 'created as manager');
  await page.getByRole('button', { name: 'Desactivar usuario 9' }).click();
  await page.getByText('Usuario 9 desactivado.', { exact: true }).waitFor();
  await page.locator('tr[data-pin="9"]').getByText('inactivo', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Eliminar usuario 9' }).click();
  const one = page.getByRole('dialog', { name: '¿Eliminar el usuario 9?' });
  await one.getByText('El usuario se elimina de BioGate y de todos los terminales de la sede.').waitFor();
  t.equal(await countShown(one.getByLabel('Escriba 9 para confirmar')), 1, 'es: the typed confirmation');
  t.equal(await one.getByRole('button', { name: 'Eliminar', exact: true }).isDisabled(), true, 'es: not before the PIN is typed');
  await b.axe(t, page, 'users, deleting (es, light)');
  await one.getByRole('button', { name: 'Cancelar' }).click();
  await one.waitFor({ state: 'hidden' });

  // The users' bulk bar: deactivate, then delete after typing the Spanish word.
  const bar = page.getByRole('toolbar', { name: 'Usuarios seleccionados' });
  await page.getByLabel('Seleccionar usuario 2', { exact: true }).check();
  await page.getByLabel('Seleccionar usuario 3', { exact: true }).check();
  await bar.getByText('2 usuarios seleccionados', { exact: true }).waitFor();
  await bar.getByRole('button', { name: 'Desactivar seleccionados' }).click();
  await bar.getByText('Desactivados: 2 hechos.', { exact: true }).waitFor();
  await bar.getByRole('button', { name: 'Eliminar seleccionados' }).click();
  const many = page.getByRole('dialog', { name: '¿Eliminar 2 usuarios?' });
  await many.getByText('Los PIN 2, 3 se eliminan de BioGate').waitFor();
  await many.getByLabel('Escriba eliminar para confirmar').fill('eliminar');
  await many.getByRole('button', { name: 'Eliminar usuarios' }).click();
  await bar.getByText('Eliminados: 2 hechos.', { exact: true }).waitFor();
  t.equal((await g.a.api('GET', '/api/users/2')).status, 404, 'deleted');

  // The CSV import and its report.
  await page.getByRole('heading', { name: 'Importar usuarios desde CSV', level: 2 }).waitFor();
  t.match(
    await page.locator('section[aria-labelledby="import-h"] p').first().textContent(),
    /^Una fila de encabezado .*\(pin, first_name, .*is_active, …\)/,
  );
  const csv = 'PIN;First Name;Last Name;Notas\r\n501;Eva;Sol;Ventas\r\n502;Luis;Mar;Ventas\r\nabc;Mal;Fila;Ventas\r\n';
  await page.getByLabel('Archivo CSV').setInputFiles({ name: 'personas.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByText('2 usuarios importados; 1 fila falló. Columnas ignoradas: Notas.', { exact: true }).waitFor();
  await page.getByText('3 de 3 filas enviadas', { exact: true }).waitFor();
  t.equal(await countShown(page.getByLabel('Progreso de la importación')), 1, 'es: the progress bar is named');
  const failed = page.getByRole('table', { name: 'Filas no importadas' });
  for (const column of ['Línea', 'PIN', 'Problema'])
    t.equal(await countShown(failed.getByRole('columnheader', { name: column, exact: true })), 1, `es: import column ${column}`);
  await page.getByText('4 usuarios.', { exact: true }).waitFor();
  await b.axe(t, page, 'users (es, light)');
  await page.getByLabel('Tema').selectOption('dark');
  await b.axe(t, page, 'users (es, dark)');
  await b.shot(page, 'users-es');

  // Vietnamese: the same page re-rendered, the import report included.
  await page.getByLabel('Idioma').selectOption('vi');
  await page.getByRole('heading', { name: 'Người dùng', level: 1 }).waitFor();
  await page.getByText('4 người dùng.', { exact: true }).waitFor();
  const vi = page.getByRole('table', { name: 'Người dùng theo PIN' });
  for (const column of ['Chọn', 'Họ tên', 'Thẻ', 'Phòng ban, chức vụ', 'Quyền', 'Sinh trắc học', 'Cấp truy cập', 'Trạng thái', 'Thao tác'])
    t.equal(await countShown(vi.getByRole('columnheader', { name: column, exact: true })), 1, `vi: column ${column}`);
  for (const cell of ['quản trị viên', 'chưa có', 'đang hoạt động'])
    t.equal(await countShown(page.locator('tr[data-pin="1"]').getByText(cell, { exact: true })), 1, `vi: ${cell}`);
  await page.locator('tr[data-pin="9"]').getByText('ngừng hoạt động', { exact: true }).waitFor();
  await page.getByRole('toolbar', { name: 'Người dùng đã chọn' }).getByText('Đã chọn 0 người dùng', { exact: true }).waitFor();
  await page.getByRole('heading', { name: 'Nhập người dùng từ CSV', level: 2 }).waitFor();
  await page.getByText('Đã nhập 2 người dùng; 1 dòng bị lỗi. Cột bị bỏ qua: Notas.', { exact: true }).waitFor();
  await page.getByRole('table', { name: 'Các dòng không được nhập' }).getByRole('columnheader', { name: 'Vấn đề' }).waitFor();
  await page.getByLabel('Tìm theo tên hoặc PIN').fill('Eva');
  await page.getByRole('button', { name: 'Tìm', exact: true }).click();
  await page.getByText('1 người dùng khớp với “Eva”.', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Xóa người dùng 501' }).click();
  const viDialog = page.getByRole('dialog', { name: 'Xóa người dùng 501?' });
  t.equal(await countShown(viDialog.getByLabel('Nhập 501 để xác nhận')), 1, 'vi: the typed confirmation');
  await b.axe(t, page, 'users, deleting (vi, dark)');
  await viDialog.getByRole('button', { name: 'Hủy' }).click();
  await viDialog.waitFor({ state: 'hidden' });
  await page.getByRole('button', { name: 'Sửa người dùng 501' }).click();
  const edit = page.getByRole('form', { name: 'Sửa người dùng 501' });
  for (const label of ['Tên', 'Họ', 'Số thẻ', 'Phòng ban', 'Chức vụ', 'Đang hoạt động'])
    t.equal(await countShown(edit.getByLabel(label, { exact: true })), 1, `vi: form field ${label}`);
  // A select's label is named with its chosen option too.
  const privilege = edit.getByRole('combobox', { name: /^Quyền/ });
  t.equal(await privilege.locator('option:checked').textContent(), 'người dùng', 'vi: the privilege, in words');
  await page.getByLabel('Giao diện').selectOption('light');
  await b.axe(t, page, 'users, editing (vi, light)');

  await nav('Thiết bị');
  const viBar = page.getByRole('toolbar', { name: 'Thiết bị đã chọn' });
  await viBar.getByText('Đã chọn 0 thiết bị', { exact: true }).waitFor();
  await viBar.getByRole('button', { name: 'Chọn tất cả đang hiển thị' }).click();
  await viBar.getByText('Đã chọn 1 thiết bị', { exact: true }).waitFor();
  await viBar.getByRole('button', { name: 'Xếp lệnh cho mục đã chọn' }).click();
  await viBar.getByText(/^Đã xếp .+: 1 thành công\.$/).waitFor();
  t.equal(await countShown(viBar.getByRole('combobox', { name: /^Lệnh/ })), 1, 'vi: the command choice');
  await b.axe(t, page, 'devices bulk bar (vi)');
  t.same(page.problems, [], 'no off-site request, CSP violation or script error');
});
