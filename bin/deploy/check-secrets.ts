import { DescribeSecretCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { createSecretCommand, secretName, secretRegion, type DeploySecret } from '#lib/deploy-secrets';
import { DeploySettingsError } from '#lib/deploy-settings';

/**
 * `-c checkSecrets=true`: before synthesizing, asks Secrets Manager (DescribeSecret: the secret's
 * metadata, never its value) whether every secret the stage references exists with a current
 * value, so a deploy stops here, naming them, instead of deploying functions that fail on their
 * first read. Uses the normal AWS credential chain and `secretsmanager:DescribeSecret`.
 */
export type SecretProblem = { secret: DeploySecret; problem: 'missing' | 'scheduled for deletion' | 'has no value' };

export async function checkDeploySecrets(
  secrets: readonly DeploySecret[],
  options: { region?: string; endpoint?: string } = {},
): Promise<SecretProblem[]> {
  const clients = new Map<string, SecretsManagerClient>();
  const clientFor = (region: string | undefined) => {
    const key = region ?? '';
    let client = clients.get(key);
    if (!client) clients.set(key, (client = new SecretsManagerClient({ ...(region && { region }), ...(options.endpoint && { endpoint: options.endpoint }) })));
    return client;
  };
  try {
    const problems = await Promise.all(
      secrets.map(async (secret): Promise<SecretProblem | undefined> => {
        const id = 'arn' in secret.reference ? secret.reference.arn : secret.reference.name;
        try {
          const described = await clientFor(secretRegion(secret.reference) ?? options.region).send(new DescribeSecretCommand({ SecretId: id }));
          if (described.DeletedDate) return { secret, problem: 'scheduled for deletion' };
          const stages = Object.values(described.VersionIdsToStages ?? {}).flat();
          return stages.includes('AWSCURRENT') ? undefined : { secret, problem: 'has no value' };
        } catch (error) {
          if (error instanceof ResourceNotFoundException) return { secret, problem: 'missing' };
          // checkSecrets was asked for: a check that cannot be made stops the deploy too, saying why.
          throw new DeploySettingsError(`checkSecrets: could not check the secret ${secretName(secret.reference)} in Secrets Manager: ${(error as Error).message || (error as Error).name}`, { cause: error });
        }
      }),
    );
    return problems.filter((problem) => problem !== undefined);
  } finally {
    for (const client of clients.values()) client.destroy();
  }
}

/** What to do about each problem: the command that fixes it. */
export function describeSecretProblems(problems: readonly SecretProblem[], stage: string): string {
  const lines = problems.map(({ secret, problem }) => {
    const name = secretName(secret.reference);
    const region = secretRegion(secret.reference);
    const inRegion = region ? ` --region ${region}` : '';
    const fix =
      problem === 'missing'
        ? createSecretCommand(secret)
        : problem === 'scheduled for deletion'
          ? `aws secretsmanager restore-secret --secret-id ${name}${inRegion}`
          : `aws secretsmanager put-secret-value --secret-id ${name} --secret-string '${secret.value}'${inRegion}`;
    return `  ${name} (${secret.what}; context ${secret.context}Arn or ${secret.context}Name): ${problem}\n    ${fix}`;
  });
  return [`The ${stage} stage needs ${problems.length === 1 ? 'a secret' : 'secrets'} Secrets Manager does not have ready:`, ...lines, 'Create them, then deploy again (docs/operations.md, "Secrets").'].join('\n');
}
