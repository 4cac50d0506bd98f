/**
 * The administration pages in Spanish and Vietnamese (issue #38 item 7), in Chromium against the real app: the admin
 * view (locations with the typed confirmation of disabling one, tokens, unassigned terminals), then a location's
 * "Add a terminal" guide and Sync page, in a Spanish browser; the header's switch then gives Vietnamese, and the same
 * pages say it in Vietnamese. axe-core clean in both languages and both themes.
 */
import type { Page } from 'playwright-core';
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { gateway } from '../api/client.js';
import { ADMIN_TOKEN } from '../helpers/app.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { countShown } from './pages.js';

const STRAY = 'PERDIDO1';
const GUIDE = 'GUIA1';

/** The names of the column headers of `table`, in order. */
const columns = async (page: Page, table: string) =>
  (await page.getByRole('table', { name: table, exact: true }).getByRole('columnheader').allInnerTexts()).map((s) => s.trim());

t.test('the administration pages in Spanish, then in Vietnamese', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t, { config: { adminToken: ADMIN_TOKEN } });
  const url = new URL(g.url);
  const sim = createSimulatedDevice({ url: g.url, sn: STRAY, protocol: 'v2', requestTimeoutMs: 10_000 });
  await sim.handshake();
  await sim.pollOnce();
  await sim.stop();
  await g.started.app.hub.presence.flush();

  const b = await openBrowser(t, () => g.url);
  const page = await b.page({ locale: 'es-ES' });
  const signIn = async (token: string, label: string, button: string) => {
    await page.getByLabel(label).fill(token);
    await page.getByRole('button', { name: button }).click();
  };
  const nav = (name: string) => page.getByRole('navigation').getByRole('link', { name, exact: true }).click();
  await page.goto(`${g.url}/console/`);
  await signIn(ADMIN_TOKEN, 'Token de la API', 'Iniciar sesión');

  // Locations: the form, the token shown once, the table, the typed confirmation of disabling.
  await page.getByRole('heading', { name: 'Sedes', level: 1 }).waitFor();
  await page.locator('tr[data-location]').first().waitFor();
  t.same(await columns(page, 'Sedes'), ['Id', 'Nombre', 'Zona horaria', 'Usuarios', 'Terminales', 'Estado', 'Acciones'], 'es: the columns');
  t.match(await page.locator(`tr[data-location="${g.a.id}"]`).innerText(), /activa/, 'es: the state in words');
  const form = page.getByRole('form', { name: 'Nueva sede' });
  await form.getByLabel('Nombre').fill('Sucursal');
  await form.getByLabel('Zona horaria').fill('Europe/Madrid');
  await form.getByRole('button', { name: 'Crear' }).click();
  await page.getByText(/^Sede “Sucursal” creada \(id \d+\)\. Su primer token:$/).waitFor();
  t.match(await page.getByLabel('Token (solo se muestra ahora)').inputValue(), /^bg_/, 'es: the token shown once');
  await page.getByRole('button', { name: 'Ya lo he guardado' }).click();
  await page.getByRole('button', { name: 'Desactivar la sede Sucursal' }).click();
  const dialog = page.getByRole('dialog', { name: '¿Desactivar la sede “Sucursal”?' });
  await dialog.getByText('Sus tokens reciben 403 hasta que se vuelva a activar.', { exact: false }).waitFor();
  t.equal(await countShown(dialog.getByLabel('Escriba Sucursal para confirmar')), 1, 'es: the typed confirmation');
  t.equal(await dialog.getByRole('button', { name: 'Desactivar' }).isDisabled(), true, 'es: not before the name is typed');
  await b.axe(t, page, 'admin locations, disabling (es, light)');
  await dialog.getByRole('button', { name: 'Cancelar' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.getByRole('button', { name: 'Editar la sede Sucursal' }).click();
  await page.getByRole('heading', { name: /^Editar la sede \d+$/, level: 2 }).waitFor();
  await page.getByRole('button', { name: 'Cancelar' }).click();
  const locations = await g.a.api<{ id: number; name: string }[]>('GET', '/admin/locations', { token: ADMIN_TOKEN });
  const branch = locations.body.find((l) => l.name === 'Sucursal') ?? { id: 0 };
  t.not(branch.id, 0, 'the location was created');

  // Tokens: a token created, listed and revoked.
  await nav('Tokens');
  await page.getByRole('heading', { name: 'Tokens', level: 1 }).waitFor();
  await page.getByRole('combobox', { name: /^Sede/ }).selectOption(String(branch.id));
  await page.locator('tr[data-token]').first().waitFor();
  const tokenForm = page.getByRole('form', { name: 'Nuevo token' });
  t.same(
    await tokenForm.getByLabel('Alcance').locator('option').allInnerTexts(),
    ['full: todo', 'operator: sin ajustes destructivos', 'read: solo GET'],
    'es: the scopes',
  );
  await tokenForm.getByLabel('Caduca a los (días, vacío = nunca)').fill('30');
  await tokenForm.getByLabel('Etiqueta').fill('recepción');
  await tokenForm.getByRole('button', { name: 'Crear token' }).click();
  await page.getByText('Token creado.').waitFor();
  t.same(
    await columns(page, 'Tokens de la sede'),
    ['Id', 'Alcance', 'Etiqueta', 'Creado', 'Caduca', 'Estado', 'Acciones'],
    'es: the token columns',
  );
  const row = page.locator('tr[data-token]', { hasText: 'recepción' });
  await row.getByText('válido', { exact: true }).waitFor();
  await page.getByLabel('Tema').selectOption('dark');
  await b.axe(t, page, 'admin tokens (es, dark)');
  await page.getByLabel('Tema').selectOption('light');
  await row.getByRole('button', { name: /^Revocar el token \d+$/ }).click();
  await page.getByText(/^Token \d+ revocado\.$/).waitFor();
  await row.getByText('revocado', { exact: true }).waitFor();

  // Unassigned terminals: the one that called in, assigned; then none.
  await nav('Terminales sin asignar');
  await page.getByRole('heading', { name: 'Terminales sin asignar', level: 1 }).waitFor();
  await page.locator(`tr[data-sn="${STRAY}"]`).waitFor();
  t.same(
    await columns(page, 'Terminales sin asignar'),
    ['N.º de serie', 'Primer contacto', 'Último contacto', 'Dirección', 'Protocolo', 'Asignar a'],
    'es: the unassigned columns',
  );
  await b.axe(t, page, 'admin unassigned (es, light)');
  await page.getByLabel(`Sede para ${STRAY}`).selectOption(String(branch.id));
  await page.getByRole('button', { name: `Asignar ${STRAY}` }).click();
  await page.getByText(`${STRAY} asignado a la sede ${branch.id}.`).waitFor();
  await page.getByText('Ninguno.', { exact: true }).waitFor();

  // A location: the "Add a terminal" guide and the Sync page.
  await page.getByRole('button', { name: 'Cerrar sesión' }).click();
  await signIn(g.a.token, 'Token de la API', 'Iniciar sesión');
  await page.getByRole('heading', { name: 'Terminales', level: 1 }).waitFor();
  await page.getByText('Añadir un terminal', { exact: true }).click();
  t.match(
    await page.locator('dl.settings').innerText(),
    /Dirección del servidor[\s\S]*Puerto del servidor[\s\S]*Desactivado[\s\S]*ninguna/,
    'es: the settings',
  );
  t.equal(await page.locator('dl.settings').getAttribute('aria-label'), 'Ajustes del terminal', 'es: the settings named');
  const guide = page.getByRole('form', { name: 'Añadir un terminal' });
  await guide.getByRole('button', { name: 'Generar una clave de comunicación' }).click();
  const key = await guide.getByLabel('Clave de comunicación').inputValue();
  await guide.getByLabel('Número de serie').fill(GUIDE);
  await guide.getByLabel('Nombre').fill('Recepción');
  await guide.getByRole('button', { name: 'Asignar' }).click();
  await page
    .getByText(`${GUIDE} asignado: se sincroniza en cuanto se conecte a ${url.hostname}:${url.port} con la clave de comunicación ${key}.`)
    .waitFor();
  await b.axe(t, page, 'add a terminal (es, light)');

  const state = ((await g.a.api<{ sync?: { state: string } }>('GET', `/api/devices/${GUIDE}`)).body.sync?.state ?? 'unknown') as
    'in_sync' | 'syncing' | 'unknown';
  await nav('Sincronización');
  await page.getByRole('heading', { name: 'Sincronización', level: 1 }).waitFor();
  await page.getByRole('heading', { name: 'Resumen de la sede', level: 2 }).waitFor();
  await page.getByRole('heading', { name: 'Terminales con desfase', level: 2 }).waitFor();
  await page.getByText('Ningún terminal está en este estado.').waitFor();
  for (const term of ['Terminales', 'Sincronizado', 'Con desfase', 'Revocaciones pendientes', 'Línea pendiente más antigua'])
    t.equal(await countShown(page.getByRole('term').filter({ hasText: new RegExp(`^${term}$`) })), 1, `es: ${term}`);
  await page.getByText(/^Si cada terminal tiene los usuarios que debe tener\. Desfase: el terminal rechazó/).waitFor();
  const es = { in_sync: 'sincronizado', syncing: 'sincronizando', unknown: 'sincronización desconocida' };
  await page.getByLabel('Estado').selectOption(state);
  await page.getByRole('heading', { name: `Terminales: ${es[state]}`, level: 2 }).waitFor();
  await page.locator(`tr[data-sn="${GUIDE}"]`).waitFor();
  const headers = (await page.locator('table thead th').allInnerTexts()).map((s) => s.trim());
  t.same(
    headers,
    ['Terminal', 'Presencia', 'Sincronización', 'Pendiente', 'Rechazadas', 'Motivo', 'Última confirmación'],
    'es: sync columns',
  );
  await page.getByLabel('Tema').selectOption('dark');
  await b.axe(t, page, 'sync (es, dark)');
  await page.getByLabel('Tema').selectOption('light');

  // Vietnamese: the same pages.
  await page.getByLabel('Idioma').selectOption('vi');
  await page.getByRole('heading', { name: 'Đồng bộ', level: 1 }).waitFor();
  await page.getByRole('heading', { name: 'Tóm tắt địa điểm', level: 2 }).waitFor();
  const vi = { in_sync: 'đã đồng bộ', syncing: 'đang đồng bộ', unknown: 'chưa rõ đồng bộ' };
  await page.getByRole('heading', { name: `Thiết bị: ${vi[state]}`, level: 2 }).waitFor();
  t.same(
    (await page.locator('table thead th').allInnerTexts()).map((s) => s.trim()),
    ['Thiết bị', 'Hiện diện', 'Đồng bộ', 'Còn nợ', 'Bị từ chối', 'Lý do', 'Xác nhận lần cuối'],
    'vi: sync columns',
  );
  await page.getByLabel('Trạng thái').selectOption('drift');
  await page.getByRole('heading', { name: 'Thiết bị bị lệch', level: 2 }).waitFor();
  await page.getByText('Không có thiết bị nào ở trạng thái này.').waitFor();
  await b.axe(t, page, 'sync (vi)');
  await nav('Thiết bị');
  await page.getByText('Thêm thiết bị', { exact: true }).click();
  t.match(await page.locator('dl.settings').innerText(), /Địa chỉ máy chủ[\s\S]*Cổng máy chủ[\s\S]*Tắt[\s\S]*không có/, 'vi: the settings');
  const viGuide = page.getByRole('form', { name: 'Thêm thiết bị' });
  t.equal(await countShown(viGuide.getByRole('button', { name: 'Tạo khóa truyền thông' })), 1, 'vi: generate a comm key');
  t.equal(await countShown(viGuide.getByLabel('Số sê-ri')), 1, 'vi: serial number');
  await b.axe(t, page, 'add a terminal (vi)');

  await page.getByRole('button', { name: 'Đăng xuất' }).click();
  await signIn(ADMIN_TOKEN, 'Token API', 'Đăng nhập');
  await page.getByRole('heading', { name: 'Địa điểm', level: 1 }).waitFor();
  await page.locator('tr[data-location]').first().waitFor();
  t.same(await columns(page, 'Địa điểm'), ['Mã', 'Tên', 'Múi giờ', 'Người dùng', 'Thiết bị', 'Trạng thái', 'Thao tác'], 'vi: the columns');
  await page.getByRole('button', { name: 'Tắt địa điểm Sucursal' }).click();
  const viDialog = page.getByRole('dialog', { name: 'Tắt địa điểm “Sucursal”?' });
  await viDialog.getByText('Các token của địa điểm sẽ nhận lỗi 403', { exact: false }).waitFor();
  t.equal(await countShown(viDialog.getByLabel('Nhập Sucursal để xác nhận')), 1, 'vi: the typed confirmation');
  await b.axe(t, page, 'admin locations, disabling (vi)');
  await viDialog.getByRole('button', { name: 'Hủy' }).click();
  await nav('Token');
  await page.getByRole('heading', { name: 'Token', level: 1 }).waitFor();
  await page.getByRole('combobox', { name: /^Địa điểm/ }).selectOption(String(branch.id));
  await page.locator('tr[data-token]', { hasText: 'recepción' }).getByText('đã thu hồi', { exact: true }).waitFor();
  t.same(
    await columns(page, 'Token của địa điểm'),
    ['Mã', 'Phạm vi', 'Nhãn', 'Tạo lúc', 'Hết hạn', 'Trạng thái', 'Thao tác'],
    'vi: the token columns',
  );
  await b.axe(t, page, 'admin tokens (vi)');
  await nav('Thiết bị chưa gán');
  await page.getByRole('heading', { name: 'Thiết bị chưa gán', level: 1 }).waitFor();
  await page.getByText('Không có.', { exact: true }).waitFor();
  await b.axe(t, page, 'admin unassigned (vi)');
  await b.shot(page, 'admin-unassigned-vi');
  t.same(page.problems, [], 'no off-site request, CSP violation or script error');
});
