#!/usr/bin/env -S npx tsx
/**
 * The CDK app: `npm run synth` (offline, no credentials), `npx cdk deploy --all -c stage=prod
 * -c replicateSecretArn=... -c alarmEmail=...` (prod needs an alarm recipient). Every deploy setting comes from CDK context (cdk.json for the
 * defaults, -c key=value to override); lib/deploy-settings.ts lists and checks them and
 * docs/operations.md explains them. cdk-nag's AwsSolutions checks run during synthesis.
 */
import { App } from 'aws-cdk-lib';
import { buildApp } from '#lib/app';
import { DeploySettingsError } from '#lib/deploy-settings';

try {
  buildApp(new App());
} catch (error) {
  if (!(error instanceof DeploySettingsError)) throw error;
  // A mistake in the deploy command: its message names the context key; a stack trace adds nothing.
  console.error(error.message);
  process.exit(1);
}
