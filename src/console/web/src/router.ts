/** Client-side routes under /console/ (the server answers the page for every one of them). */
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/console';

function current(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '/';
  return path === '' ? '/' : path;
}

const listeners = new Set<() => void>();
addEventListener('popstate', () => listeners.forEach((l) => l()));

export function navigate(path: string): void {
  history.pushState(null, '', BASE + path);
  listeners.forEach((l) => l());
  // Move focus to the new page's heading, so keyboard and screen-reader users land on it.
  requestAnimationFrame(() => document.querySelector<HTMLElement>('main h1')?.focus());
}

export function usePath(): string {
  const [path, setPath] = useState(current);
  useEffect(() => {
    const update = () => setPath(current());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return path;
}

/** A click on an in-app link navigates without a reload (modifier keys keep the browser's own behaviour). */
export function onLinkClick(event: MouseEvent): void {
  const a = (event.target as Element | null)?.closest('a');
  if (!a || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const href = a.getAttribute('href');
  if (!href || !href.startsWith(`${BASE}/`) || a.hasAttribute('download')) return;
  event.preventDefault();
  navigate(href.slice(BASE.length));
}
