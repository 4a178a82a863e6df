import { setting, wholeNumber } from './setting';

/**
 * How long a retention day is: 86,400 s on every stage; the local stack's tests shorten it so an
 * expiry runs within a test. Read by the views (`expires_at`) and the sweeper's expiry.
 */
export const RETENTION = {
  daySeconds: setting({
    variable: 'RETENTION_DAY_SECONDS',
    kind: wholeNumber(1),
    default: 86_400,
    doc: 'How many seconds a retention day lasts (`output_retention_days`); the local stack\'s tests only.',
  }),
};
