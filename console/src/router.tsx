import { type AnchorHTMLAttributes, type MouseEvent, useSyncExternalStore } from 'react';

/**
 * A few lines of routing on the History API: the console has a handful of flat pages, not worth
 * a router library in the initial download. Paths are under the build's base (`/console/`).
 */
const BASE = import.meta.env.BASE_URL.replace(/\/$/, '');

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  return () => window.removeEventListener('popstate', onChange);
}

const snapshot = () => window.location.pathname + window.location.search;

export interface Location {
  /** Under the base: `/keys`, `/` for the overview. */
  path: string;
  query: URLSearchParams;
}

export function useLocation(): Location {
  const href = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(href, window.location.origin);
  const path = url.pathname.startsWith(BASE) ? url.pathname.slice(BASE.length) || '/' : url.pathname;
  return { path: path.length > 1 ? path.replace(/\/$/, '') : path, query: url.searchParams };
}

export function href(to: string): string {
  return `${BASE}${to}`;
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const target = href(to);
  if (target === snapshot()) return;
  if (options.replace) window.history.replaceState(null, '', target);
  else window.history.pushState(null, '', target);
  window.dispatchEvent(new PopStateEvent('popstate'));
}

/** A link that navigates without a reload (a modified click still opens a new tab). */
export function Link({ to, ...rest }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    rest.onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a {...rest} href={href(to)} onClick={onClick} />;
}
