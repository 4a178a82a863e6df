import { Annotations, type App, Tags } from 'aws-cdk-lib';
import { type DeploySettings, readDeploySettings } from './deploy-settings';
import { addNagChecks, type VidGenNagChecks } from './nag';
import { StatefulStack } from './stateful-stack';
import { StatelessStack, type StatelessStackProps } from './stateless-stack';

export interface VidGenApp {
  settings: DeploySettings;
  stateful: StatefulStack;
  stateless: StatelessStack;
  nag: VidGenNagChecks;
}

export const stackNames = (stage: string) => ({
  stateful: `VidGen-${stage}-Stateful`,
  stateless: `VidGen-${stage}-Stateless`,
});

/**
 * Both stacks of one stage, checked by cdk-nag during synthesis. bin/cdk.ts and the CDK tests
 * build the app through here, so the tests check what `cdk deploy` deploys.
 */
export function buildApp(
  app: App,
  settings: DeploySettings = readDeploySettings((key) => app.node.tryGetContext(key)),
  options: Pick<StatelessStackProps, 'routes'> = {},
): VidGenApp {
  const names = stackNames(settings.stage);
  const env = settings.env.account || settings.env.region ? { env: settings.env } : {};
  Tags.of(app).add('project', 'vidgen');
  Tags.of(app).add('stage', settings.stage);

  const stateful = new StatefulStack(app, names.stateful, {
    ...env,
    settings,
    description: `vidgen ${settings.stage}: table, media bucket and CDN (data; retained in prod)`,
    terminationProtection: settings.production,
  });
  const stateless = new StatelessStack(app, names.stateless, {
    ...env,
    settings,
    ...options,
    description: `vidgen ${settings.stage}: REST API, functions, schedule and alarms (no data)`,
  });
  stateless.addStackDependency(stateful);
  if (settings.samLocal) {
    Annotations.of(stateless).addWarningV2(
      'vidgen:sam-local',
      'Synthesized with -c samLocal=true for sam local invoke: functions declare DYNAMODB_ENDPOINT and S3_ENDPOINT. Do not deploy this synth.',
    );
  }
  return { settings, stateful, stateless, nag: addNagChecks(app) };
}
