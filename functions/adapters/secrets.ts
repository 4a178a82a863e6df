import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { boundedClientConfig, CONTROL_PLANE_BOUNDS } from './aws-client-options';

/** Reads a secret string from Secrets Manager (the provider's API token on AWS). */
export async function readSecret(region: string, secretArn: string): Promise<string> {
  const client = new SecretsManagerClient({ region, ...boundedClientConfig(CONTROL_PLANE_BOUNDS) });
  try {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretArn }));
    if (!SecretString) throw new Error(`Secret ${secretArn} has no string value.`);
    return SecretString.trim();
  } finally {
    client.destroy();
  }
}
