import { DEFAULT_ROUTE, methodsOf, routes as allRoutes, type Method, type Route } from '../routes.ts';

// Matches a request to a row of the route table the way API Gateway does: literal segments first,
// `{param}` segments match one non-empty segment, and a trailing slash reaches the same route.

interface Compiled {
  route: Route;
  method: Method;
  regex: RegExp;
  names: string[];
  literalCount: number;
}

export interface Match {
  route: Route;
  routeKey: string;
  pathParameters: Record<string, string>;
}

/** A malformed escape (`%zz`) stays as sent: an unknown identifier (404), not a failed request. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function compileRoutes(routes: Route[] = allRoutes) {
  const compiled: Compiled[] = [];
  const fallback = routes.find((r) => r.path === DEFAULT_ROUTE);
  for (const route of routes) {
    if (route === fallback) continue;
    const names: string[] = [];
    const segments = route.path.split('/').filter(Boolean);
    const pattern = segments
      .map((s) => {
        const m = s.match(/^\{(\w+)\}$/);
        if (m) {
          names.push(m[1]);
          return '([^/]+)';
        }
        return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      })
      .join('/');
    const literalCount = segments.filter((s) => !s.startsWith('{')).length;
    for (const method of methodsOf(route)) {
      compiled.push({ route, method, regex: new RegExp(`^/${pattern}/?$`), names, literalCount });
    }
  }
  // More literal segments win, as in API Gateway (`/conversations/meta` before `/conversations/{id}`).
  compiled.sort((a, b) => b.literalCount - a.literalCount);

  return function match(method: string, path: string): Match | undefined {
    for (const c of compiled) {
      if (c.method !== method) continue;
      const m = c.regex.exec(path);
      if (!m) continue;
      const pathParameters: Record<string, string> = {};
      c.names.forEach((n, i) => {
        pathParameters[n] = decodeSegment(m[i + 1]);
      });
      return { route: c.route, routeKey: `${method} ${c.route.path}`, pathParameters };
    }
    return fallback && { route: fallback, routeKey: DEFAULT_ROUTE, pathParameters: {} };
  };
}
