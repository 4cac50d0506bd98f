/**
 * The console in three languages (issue #38 item 7): the catalogs have the same messages with the same placeholders,
 * each formats with its language's plural rules (intl-messageformat); the browser's language chooses (Spanish here),
 * the header's switch changes it at once (Vietnamese) and is remembered across a reload; <html lang> follows; axe-core
 * clean in both themes and both languages.
 */
import { IntlMessageFormat } from 'intl-messageformat';
import t from 'tap';
import { CATALOGS, pickLanguage } from '../../src/console/web/src/i18n/catalogs.js';
import { gateway } from '../api/client.js';
import { NO_BROWSER, openBrowser } from './browser.js';
import { countShown } from './pages.js';

/** The argument names of an ICU message (`{name}`, `{n, plural, …}`). */
const argumentsOf = (message: string) => new Set([...message.matchAll(/\{\s*([A-Za-z_]\w*)/g)].map((m) => m[1]));

t.test('every language has every message, with the same placeholders, and each one formats', async (t) => {
  const en = CATALOGS.en;
  for (const [language, catalog] of Object.entries(CATALOGS)) {
    t.same(Object.keys(catalog).sort(), Object.keys(en).sort(), `${language}: the same ids as English`);
    for (const [id, message] of Object.entries(catalog)) {
      const english = en[id as keyof typeof en];
      t.same([...argumentsOf(message)].sort(), [...argumentsOf(english)].sort(), `${language} ${id}: the same placeholders`);
      const values = Object.fromEntries([...argumentsOf(english)].map((name) => [name, 2]));
      t.doesNotThrow(() => new IntlMessageFormat(message, language).format(values), `${language} ${id}: formats`);
    }
  }
  const one = new IntlMessageFormat(CATALOGS.es['chart.summary'], 'es').format({ total: 1, hour: '09:00', count: 1 });
  t.equal(one, '1 marcaje hoy; la hora con más actividad es 09:00, con 1.', 'Spanish singular');
  t.match(new IntlMessageFormat(CATALOGS.en['chart.summary'], 'en').format({ total: 5, hour: '09:00', count: 3 }), /^5 punches today/);
});

t.test('the browser’s languages choose, by primary subtag; English otherwise', async (t) => {
  t.equal(pickLanguage(['es-MX', 'en']), 'es');
  t.equal(pickLanguage(['fr-FR', 'vi-VN']), 'vi');
  t.equal(pickLanguage(['fr-FR', 'de']), 'en');
  t.equal(pickLanguage(['EN-gb']), 'en');
  t.equal(pickLanguage([]), 'en');
});

t.test('a Spanish browser gets Spanish; the switch gives Vietnamese and keeps it', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t);
  const b = await openBrowser(t, () => g.url);
  const page = await b.page({ locale: 'es-ES' });
  await page.goto(`${g.url}/console/`);
  await page.getByRole('heading', { name: 'Consola de BioGate', level: 1 }).waitFor();
  t.equal(await page.evaluate('document.documentElement.lang'), 'es', '<html lang="es">');
  await page.getByLabel('Token de la API').fill('bg_not_a_token_of_this_gateway');
  await page.getByRole('button', { name: 'Iniciar sesión' }).click();
  await page
    .getByRole('alert')
    .getByText(
      /^Este token no es válido(: compruébelo o pida uno nuevo| aquí \(y la API de administración está desactivada\))\. \(UNAUTHORIZED\)$/,
    )
    .waitFor();
  await page.getByLabel('Token de la API').fill(g.a.token);
  await page.getByRole('button', { name: 'Iniciar sesión' }).click();
  const nav = page.getByRole('navigation', { name: 'Principal' });
  await nav.getByRole('link', { name: 'Panel', exact: true }).click();
  await page.getByRole('heading', { name: 'Panel', level: 1 }).waitFor();
  await page.getByText('Terminales en línea').waitFor();
  await page.getByText('Todavía no hay marcajes hoy.').first().waitFor();
  for (const theme of ['light', 'dark'] as const) {
    await page.getByLabel('Tema').selectOption(theme);
    await b.axe(t, page, `dashboard (es, ${theme})`);
  }

  await page.getByLabel('Idioma').selectOption('vi');
  const vi = page.getByRole('navigation', { name: 'Chính' });
  await vi.getByRole('link', { name: 'Tổng quan', exact: true }).waitFor();
  t.equal(await page.evaluate('document.documentElement.lang'), 'vi', '<html lang="vi">');
  await page.getByRole('heading', { name: 'Tổng quan', level: 1 }).waitFor();
  t.equal(await countShown(page.getByRole('button', { name: 'Đăng xuất' })), 1, 'the header too');
  await page.reload();
  await page.getByRole('heading', { name: 'Tổng quan', level: 1 }).waitFor();
  t.equal(await page.evaluate("localStorage.getItem('biogate.console.language')"), 'vi', 'remembered in this browser');
  await b.axe(t, page, 'dashboard (vi)');
  await b.shot(page, 'dashboard-vi');
});

t.test('the devices grid in Spanish and Vietnamese: heading, counts, facts, badges and times', { skip: NO_BROWSER }, async (t) => {
  const g = await gateway(t);
  t.equal((await g.a.api('POST', '/api/devices', { body: { sn: 'IDIOMA1', name: 'Entrada' } })).status, 201);
  t.equal((await g.a.api('POST', '/api/devices', { body: { sn: 'IDIOMA2' } })).status, 201);
  const b = await openBrowser(t, () => g.url);
  const page = await b.page({ locale: 'es-ES' });
  await page.goto(`${g.url}/console/`);
  await page.getByLabel('Token de la API').fill(g.a.token);
  await page.getByRole('button', { name: 'Iniciar sesión' }).click();
  await page.getByRole('navigation', { name: 'Principal' }).getByRole('link', { name: 'Terminales', exact: true }).click();
  await page.getByRole('heading', { name: 'Terminales', level: 1 }).waitFor();
  await page.getByText('2 terminales, 0 en línea').waitFor();
  const card = page.getByRole('list', { name: 'Terminales' }).getByRole('listitem').filter({ hasText: 'IDIOMA1' });
  await card.getByText('○ Sin conexión').waitFor();
  for (const fact of ['N.º de serie', 'Última conexión', 'Protocolo', 'Autenticación', 'Comandos pendientes'])
    t.equal(await countShown(card.getByText(fact, { exact: true })), 1, `es: ${fact}`);
  t.equal(await countShown(card.getByText('nunca', { exact: true })), 1, 'es: never seen');
  t.equal(await countShown(card.getByText('aún desconocido', { exact: true })), 1, 'es: protocol not yet known');
  t.equal(await countShown(card.getByRole('checkbox', { name: 'Seleccionar Entrada' })), 1, 'es: the selection box is named');
  await page.getByText('Actualizaciones en vivo activas').waitFor();
  await b.axe(t, page, 'devices (es)');

  // One terminal's page: its sections, facts and the typed confirmation of removing it.
  await card.getByRole('link', { name: 'Entrada' }).click();
  await page.getByRole('heading', { name: 'Entrada', level: 1 }).waitFor();
  for (const section of ['Estado', 'Acciones', 'Comandos recientes'])
    t.equal(await countShown(page.getByRole('heading', { name: section, level: 2 })), 1, `es: section ${section}`);
  t.equal(await countShown(page.getByText('Registrado', { exact: true })), 1, 'es: registered');
  await page.getByRole('button', { name: 'Quitar este terminal de la sede…' }).click();
  const remove = page.getByRole('dialog', { name: '¿Quitar IDIOMA1 de esta sede?' });
  await remove.getByText('La sincronización se detiene').waitFor();
  t.equal(await countShown(remove.getByLabel('Escriba IDIOMA1 para confirmar')), 1, 'es: the typed confirmation');
  t.equal(await remove.getByRole('button', { name: 'Quitar' }).isDisabled(), true, 'es: not before the serial is typed');
  await b.axe(t, page, 'device, removing (es)');
  await remove.getByRole('button', { name: 'Cancelar' }).click();
  await remove.waitFor({ state: 'hidden' });

  // A command queued from the page: the notice, then its row in the table with its status in words.
  await page.getByRole('button', { name: 'Obtener información' }).click();
  await page.getByText(/^Obtener información: comando \d+ en cola \(pendiente\)\.$/).waitFor();
  const table = page.getByRole('table', { name: 'Comandos, los más recientes primero' });
  for (const column of ['Comando', 'Estado', 'En cola', 'Terminado'])
    t.equal(await countShown(table.getByRole('columnheader', { name: column, exact: true })), 1, `es: column ${column}`);
  await table.getByRole('row').filter({ hasText: 'info' }).getByText('pendiente', { exact: true }).waitFor();

  await page.getByLabel('Idioma', { exact: true }).selectOption('vi');
  for (const section of ['Trạng thái', 'Thao tác', 'Lệnh gần đây']) await page.getByRole('heading', { name: section, level: 2 }).waitFor();
  await page.locator('.crumbs').getByRole('link', { name: 'Thiết bị' }).click();
  await page.getByRole('heading', { name: 'Thiết bị', level: 1 }).waitFor();
  await page.getByText('2 thiết bị, 0 trực tuyến').waitFor();
  const vi = page.getByRole('list', { name: 'Thiết bị' }).getByRole('listitem').filter({ hasText: 'IDIOMA2' });
  await vi.getByText('○ Ngoại tuyến').waitFor();
  t.equal(await countShown(vi.getByText('Số sê-ri', { exact: true })), 1, 'vi: serial');
  t.equal(await countShown(vi.getByText('chưa bao giờ', { exact: true })), 1, 'vi: never seen');
  await b.axe(t, page, 'devices (vi)');
  await b.shot(page, 'devices-vi');
});
