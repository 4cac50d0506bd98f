/**
 * The console's browser tests drive Debian's Chromium headless through playwright-core (no browser
 * download: `executablePath`). Without Chromium the tests skip, saying why (CI installs it, .ci/run).
 *
 *   const b = await openBrowser(t);      // one browser per file, closed at teardown
 *   const page = await b.page();         // a fresh context (own sessionStorage) per call
 *   await b.axe(t, page, 'devices');     // axe-core: no serious or critical violations
 *   await b.shot(page, 'devices');       // test-artifacts/console/devices.png
 *
 * Every page also fails the test on a request that leaves BioGate, a Content-Security-Policy
 * violation, or a script error.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { Test } from 'tap';
import type { Teardown } from '../helpers/app.js';

const CANDIDATES = [process.env['BIOGATE_TEST_CHROMIUM'], '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
export const CHROMIUM = CANDIDATES.find((p): p is string => typeof p === 'string' && p !== '' && existsSync(p));
/** The reason the browser tests skip, or false when they can run. */
export const NO_BROWSER: string | false =
  CHROMIUM === undefined
    ? 'Chromium is not installed (apt-get install chromium, or set BIOGATE_TEST_CHROMIUM): console browser tests skipped'
    : false;

export const ARTIFACTS = join(process.cwd(), 'test-artifacts', 'console');

/** The part of a tap Test these helpers use. */
export type Checks = Pick<Test, 'same'>;

export interface ConsoleBrowser {
  readonly browser: Browser;
  /** A page in a fresh context; `problems` collects off-site requests, CSP violations and script errors. */
  page(options?: { width?: number; height?: number; locale?: string }): Promise<Page & { problems: string[] }>;
  axe(t: Checks, page: Page, name: string): Promise<void>;
  /** A screenshot into the artifacts: the whole page unless `fullPage` is false (the first screen). */
  shot(page: Page, name: string, fullPage?: boolean): Promise<void>;
}

export async function openBrowser(t: Teardown, base: () => string): Promise<ConsoleBrowser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM as string,
    headless: true,
    // Containers run as root, where Chromium's sandbox cannot start.
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
  t.teardown(() => browser.close());
  await mkdir(ARTIFACTS, { recursive: true });
  const axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  return {
    browser,
    async page(options = {}) {
      const context = await browser.newContext({
        viewport: { width: options.width ?? 1280, height: options.height ?? 860 },
        acceptDownloads: true,
        ...(options.locale ? { locale: options.locale } : {}),
      });
      const page = (await context.newPage()) as Page & { problems: string[] };
      page.problems = [];
      page.on('request', (req) => {
        const u = req.url();
        if (!u.startsWith(base()) && !u.startsWith(base().replace(/^http/, 'ws')) && !/^(data|blob):/.test(u))
          page.problems.push(`request off BioGate: ${u}`);
      });
      page.on('console', (m) => {
        if (/Content.Security.Policy|Refused to/i.test(m.text())) page.problems.push(`CSP: ${m.text()}`);
      });
      page.on('pageerror', (err) => page.problems.push(`script error: ${err.message}`));
      return page;
    },
    async axe(t, page, name) {
      // Evaluated through the DevTools protocol, which the page's CSP does not govern; the page's
      // own scripts stay under the policy.
      await page.evaluate(axeSource);
      const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as {
        violations: { id: string; impact: string | null; help: string; nodes: { target: unknown }[] }[];
      };
      const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      t.same(
        bad.map((v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`),
        [],
        `axe: no serious or critical violations on ${name}`,
      );
    },
    async shot(page, name, fullPage = true) {
      await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage });
    },
  };
}

/**
 * Waits until `expression` is truthy in the page, evaluated from outside it (the DevTools protocol, which the console's
 * CSP does not govern; Playwright's waitForFunction polls with eval inside the page, which the CSP refuses). True once
 * it holds, false after `timeoutMs`.
 */
export async function pageUntil(page: Pick<Page, 'evaluate'>, expression: string, timeoutMs = 10_000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await page.evaluate(expression)) return true;
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
