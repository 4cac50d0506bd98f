/**
 * What the console's browser tests do on the way to what they check: sign in, follow the main navigation, sign
 * in again with a read token, and give a user an area or an access level on the users page.
 */
import type { Locator, Page } from 'playwright-core';
import type { Test } from 'tap';
import type { Call, Gateway } from '../api/client.js';
import type { ConsoleBrowser } from './browser.js';

type ConsolePage = Awaited<ReturnType<ConsoleBrowser['page']>>;

/**
 * How many elements `locator` matches once the first of them is there (up to 10 s): for a check that exactly one
 * element shows, made right after the click or the language change that draws it. Counting at once would read the
 * page before it is redrawn on a busy machine; when none comes, the count (0) fails the check as before.
 */
export async function countShown(locator: Locator): Promise<number> {
  await locator
    .first()
    .waitFor({ state: 'attached', timeout: 10_000 })
    .catch(() => undefined);
  return locator.count();
}

/** A fresh page of `b` signed in to the console at `url` with `token`, on its first page (Devices). */
export async function signedIn(b: ConsoleBrowser, url: string, token: string): Promise<ConsolePage> {
  const page = await b.page();
  await page.goto(`${url}/console/`);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Devices', level: 1 }).waitFor();
  return page;
}

/**
 * A fresh page of `b` whose browser prefers Spanish, signed in to the console at `url` with a location `token`, on its
 * first page (Terminales); `nav` follows the main navigation's link called exactly `name`, in Spanish or Vietnamese.
 */
export async function signedInSpanish(
  b: ConsoleBrowser,
  url: string,
  token: string,
): Promise<{ page: ConsolePage; nav: (name: string) => Promise<void> }> {
  const page = await b.page({ locale: 'es-ES' });
  await page.goto(`${url}/console/`);
  await page.getByLabel('Token de la API').fill(token);
  await page.getByRole('button', { name: 'Iniciar sesión' }).click();
  await page.getByRole('heading', { name: 'Terminales', level: 1 }).waitFor();
  const nav = (name: string) =>
    page
      .getByRole('navigation', { name: /^(Principal|Chính)$/ })
      .getByRole('link', { name, exact: true })
      .click();
  return { page, nav };
}

/** A read token of the gateway's bootstrap location. */
export function readToken(g: Gateway): ReturnType<Gateway['started']['app']['locations']['issueToken']> {
  return g.started.app.locations.issueToken({ location_id: g.a.id, scope: 'read' });
}

/** Follows the main navigation's link called exactly `name`. */
export function mainNav(page: Page): (name: string) => Promise<void> {
  return (name) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
}

/**
 * On the users page, checks `name` in the user's `group` (Areas, Access levels) and saves: the API then lists
 * `id` in the user's `field`, and the row's `cell` names it; the form opened again shows it checked.
 */
export async function giveOnUsersPage(
  t: Test,
  b: ConsoleBrowser,
  page: Page,
  api: Call,
  o: { pin: number; group: string; cell: string; field: string; name: string; id: number; what: string; shot: string },
): Promise<void> {
  await mainNav(page)('Users');
  await page.getByRole('heading', { name: 'Users', level: 1 }).waitFor();
  const user = page.locator(`tr[data-pin="${o.pin}"]`);
  await user.waitFor();
  t.equal(await user.locator(o.cell).innerText(), '—', `no ${o.what} at first`);
  await page.getByRole('button', { name: `Edit user ${o.pin}` }).click();
  const form = page.getByRole('form', { name: `Edit user ${o.pin}` });
  await form.getByRole('group', { name: o.group }).getByLabel(o.name).check();
  await form.getByRole('button', { name: 'Save' }).click();
  await page.getByText(`User ${o.pin} saved.`).waitFor();
  t.same((await api<Record<string, unknown>>('GET', `/api/users/${o.pin}`)).body[o.field], [o.id], `the API lists the ${o.what}`);
  await user.locator(o.cell, { hasText: o.name }).waitFor();
  t.equal(await user.locator(o.cell).innerText(), o.name, 'the row names it');

  await page.getByRole('button', { name: `Edit user ${o.pin}` }).click();
  t.equal(await form.getByRole('group', { name: o.group }).getByLabel(o.name).isChecked(), true, 'the form shows it checked');
  await b.axe(t, page, `users (${o.group.toLowerCase()})`);
  await b.shot(page, o.shot);
  await form.getByRole('button', { name: 'Cancel' }).click();
}
