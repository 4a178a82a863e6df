import type { Route } from '#http/routes/index';

export interface RouteMatch {
  route: Route;
  pathParameters: Record<string, string> | null;
  /** The path is the route's, the method one it refuses (`Route.refusedMethods`): answer 405, run nothing. */
  refused?: true;
}

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  names: string[];
}

/**
 * Matches a method and path against API Gateway style resource paths (`/videos/{video_id}`),
 * with or without one trailing slash.
 */
export function createRouter(routes: readonly Route[]) {
  const compiled: CompiledRoute[] = routes.map((route) => {
    const names: string[] = [];
    const source = route.path
      .split('/')
      .map((segment) => {
        const param = /^\{(\w+)\}$/.exec(segment);
        if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(param[1]!);
        return '([^/]+)';
      })
      .join('/');
    // One trailing slash reaches the same route, as on API Gateway's REST APIs (`/docs/`).
    return { route, pattern: new RegExp(`^${source}/?$`), names };
  });

  return function match(method: string, path: string): RouteMatch | undefined {
    for (const { route, pattern, names } of compiled) {
      if (route.method !== method) continue;
      const found = pattern.exec(path);
      if (!found) continue;
      const pathParameters =
        names.length === 0 ? null : Object.fromEntries(names.map((name, i) => [name, found[i + 1]!]));
      return { route, pathParameters };
    }
    // Only once no route takes the method: a refused method is still an unknown route elsewhere.
    const refusing = compiled.find(({ route, pattern }) => (route.refusedMethods as readonly string[] | undefined)?.includes(method) && pattern.test(path));
    return refusing && { route: refusing.route, pathParameters: null, refused: true };
  };
}
