/** The request schemas of /generate and /generate-image, from docs/openapi.json (console/vite.config.mts). */
declare const __REQUEST_SCHEMAS__: Record<'video' | 'image', import('./playground-form').RequestSchema>;
