/**
 * What `npm start` prints once the stack is up: where everything is and how to use it. README.md
 * shows a sample of it, line for line (test/unit/readme-banner.test.ts holds them together).
 */
export interface BannerFacts {
  baseUrl: string;
  apiKey: string;
  accountId: string;
  credits: number;
  /** The demo account was made by this start. */
  created: boolean;
  dynamodbEndpoint: string;
  tableName: string;
  s3Endpoint: string;
  mediaBucket: string;
  /** The second bucket, standing for a customer's storage (settings.ts CUSTOMER_BUCKET). */
  customerBucket: string;
  /** The local knobs of deliveries and retention, as the handlers read them. */
  deliveryRetrySchedule: string;
  retentionDaySeconds: string;
  identity: { endpoint: string; userPoolId: string; clientId: string };
  /** The Stripe simulator's URL; undefined when STRIPE_SECRET_KEY names a Stripe account. */
  stripeSimulatorUrl?: string;
  /** Where its events token is (`<data folder>/stripe-simulator.json`). */
  stripeTokenFile: string;
  dataDir: string;
  /** What to paste in another shell, when not on the default ports (bin/local.ts). */
  otherShells: string[];
}

export function banner(facts: BannerFacts): string {
  return [
    '',
    'Video generation API: local stack is up',
    '',
    `  Base URL        ${facts.baseUrl}`,
    `  API key         ${facts.apiKey}`,
    `  Demo account    ${facts.accountId} (${facts.credits} credits)${facts.created ? ', created now' : ''}`,
    `  DynamoDB Local  ${facts.dynamodbEndpoint} (table ${facts.tableName})`,
    `  S3 (s3rver)     ${facts.s3Endpoint} (bucket ${facts.mediaBucket})`,
    `                  bucket ${facts.customerBucket} stands for your storage: npm run -s local:presign -- KEY`,
    `  Deliveries      retried after ${facts.deliveryRetrySchedule} s (DELIVERY_RETRY_SCHEDULE); a retention day is ${facts.retentionDaySeconds} s (RETENTION_DAY_SECONDS)`,
    `  Identity        ${facts.identity.endpoint} (Cognito API; user pool ${facts.identity.userPoolId}, client ${facts.identity.clientId})`,
    '                  verification codes are printed here; npm run admin -- user create --email E --password P',
    facts.stripeSimulatorUrl
      ? `  Stripe          ${facts.stripeSimulatorUrl} (simulator; STRIPE_SIM_PORT picks its port)`
      : '  Stripe          your Stripe account (STRIPE_SECRET_KEY)',
    ...(facts.stripeSimulatorUrl ? [`                  POST /simulator/events needs the token in ${facts.stripeTokenFile}`] : []),
    `  Data folder     ${facts.dataDir}`,
    `  API reference   ${facts.baseUrl}/docs`,
    `  Console         ${new URL(facts.baseUrl).origin}/console/`,
    '',
    ...facts.otherShells,
    `  Try: curl -H "Authorization: Bearer ${facts.apiKey}" ${facts.baseUrl}/credits`,
    '',
    'Press Ctrl-C to stop.',
    '',
  ].join('\n');
}
