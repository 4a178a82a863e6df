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
  segments: string[];
}

const isParameter = (segment: string) => /^\{\w+\}$/.test(segment);

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
    return { route, pattern: new RegExp(`^${source}/?$`), names, segments: route.path.split('/') };
  });
  // Every resource of the API (each route's path and its parents): a literal one is taken
  // before a {parameter} sibling, as API Gateway resolves resources.
  const resources = new Set(compiled.flatMap(({ segments }) => segments.map((_, i) => segments.slice(0, i + 1).join('/'))));
  /** A parameter of `route` stands where the path names a literal resource: API Gateway went there instead. */
  const shadowed = ({ segments }: CompiledRoute, path: string) => {
    const given = path.replace(/\/$/, '').split('/');
    return segments.some((segment, i) => isParameter(segment) && resources.has([...segments.slice(0, i), given[i]].join('/')));
  };

  return function match(method: string, path: string): RouteMatch | undefined {
    for (const entry of compiled) {
      const { route, pattern, names } = entry;
      if (route.method !== method) continue;
      const found = pattern.exec(path);
      if (!found || shadowed(entry, path)) continue;
      const pathParameters =
        names.length === 0 ? null : Object.fromEntries(names.map((name, i) => [name, found[i + 1]!]));
      return { route, pathParameters };
    }
    // Only once no route takes the method: a refused method is still an unknown route elsewhere.
    const refusing = compiled.find(({ route, pattern }) => (route.refusedMethods as readonly string[] | undefined)?.includes(method) && pattern.test(path));
    return refusing && { route: refusing.route, pathParameters: null, refused: true };
  };
}
