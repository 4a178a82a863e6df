/** The simulated provider's defaults, apart from its settings schema: functions/config/ reads them without loading zod. */
export const SIMULATED_DEFAULTS = { delaySeconds: 10 } as const;
