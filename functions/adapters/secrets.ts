import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { traced } from '#observability/client-tracing';
import { boundedClientConfig, CONTROL_PLANE_BOUNDS } from './aws-client-options';
import { SECRET_MAX_AGE_SECONDS } from './secret-max-age';

export { SECRET_MAX_AGE_SECONDS };

export type SecretReader = (secretArn: string) => Promise<string>;

/** Reads secret strings through Powertools Parameters, cached for `maxAgeSeconds`. */
export function secretReader(client: SecretsManagerClient, maxAgeSeconds = SECRET_MAX_AGE_SECONDS): SecretReader {
  const secrets = new SecretsProvider({ awsSdkV3Client: client });
  return async (secretArn) => {
    const value = await secrets.get(secretArn, { maxAge: maxAgeSeconds });
    if (typeof value !== 'string' || !value.trim()) throw new Error(`Secret ${secretArn} has no string value.`);
    return value.trim();
  };
}

const readers = new Map<string, SecretReader>();

/** Reads a secret string (the provider's API token on AWS) with one cached client per region. */
export function readSecret(region: string, secretArn: string): Promise<string> {
  let reader = readers.get(region);
  if (!reader) readers.set(region, (reader = secretReader(traced(new SecretsManagerClient({ region, ...boundedClientConfig(CONTROL_PLANE_BOUNDS) })))));
  return reader(secretArn);
}
