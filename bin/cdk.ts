#!/usr/bin/env -S npx tsx
/**
 * The CDK app: `npm run synth` (offline, no credentials), `npx cdk deploy --all -c stage=prod
 * -c checkSecrets=true -c alarmEmail=... -c mailFromAddress=...` (prod needs an alarm recipient and a
 * sender for invitation mail; checkSecrets first asks
 * Secrets Manager for every secret the stage references and stops, naming the missing ones). Every
 * deploy setting comes from CDK context (cdk.json for the defaults, -c key=value to override);
 * lib/deploy-settings.ts lists and checks them and docs/operations.md explains them. cdk-nag's
 * AwsSolutions checks run during synthesis.
 */
import { App } from 'aws-cdk-lib';
import { buildApp } from '#lib/app';
import { deploySecrets } from '#lib/deploy-secrets';
import { DeploySettingsError, readDeploySettings } from '#lib/deploy-settings';
import { checkDeploySecrets, describeSecretProblems } from './deploy/check-secrets';

async function main(): Promise<void> {
  const app = new App();
  const settings = readDeploySettings((key) => app.node.tryGetContext(key));
  if (settings.checkSecrets) {
    const problems = await checkDeploySecrets(deploySecrets(settings), { ...(settings.env.region && { region: settings.env.region }) });
    if (problems.length > 0) throw new DeploySettingsError(describeSecretProblems(problems, settings.stage));
  }
  buildApp(app, settings);
}

main().catch((error: unknown) => {
  // A mistake in the deploy command or a missing secret: the message names it; a stack trace adds nothing.
  console.error(error instanceof DeploySettingsError ? error.message : error);
  process.exit(1);
});
