/**
 * How long a secret read is reused before Secrets Manager is asked again. A rotated provider
 * token is in use within this long, without a redeploy; meanwhile each warm function asks
 * Secrets Manager at most once per period. Apart from ./secrets.ts, whose client the providers
 * load only on their first secret read (app-context/provider.ts).
 */
export const SECRET_MAX_AGE_SECONDS = 5 * 60;
