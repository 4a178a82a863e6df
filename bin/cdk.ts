#!/usr/bin/env -S npx tsx
/** The CDK app (`npx cdk synth`, `npx cdk deploy`). Stage from context: -c stage=prod. */
import { App } from 'aws-cdk-lib';
import { StatefulStack } from '../lib/stateful-stack';

const app = new App();
const stage = (app.node.tryGetContext('stage') as string | undefined) ?? 'dev';

new StatefulStack(app, `VidGen-${stage}-Stateful`, { stage });
