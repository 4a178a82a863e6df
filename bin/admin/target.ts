import { buildAppContext, type AppContext } from '../../functions/app-context';
import { loadConfig } from '../../functions/config';
import { localSettings } from '../local-stack/settings';

/**
 * Which tables the admin CLI works on. By default the running local stack (`npm start`);
 * with --aws, the deployed tables named by TABLE_NAME / AWS_REGION (or --table / --region),
 * using the normal AWS credential chain.
 */
export interface TargetOptions {
  aws?: boolean;
  table?: string;
  region?: string;
}

export function connect(options: TargetOptions, env: NodeJS.ProcessEnv = process.env): AppContext {
  if (options.aws) {
    return buildAppContext(
      loadConfig({
        ...env,
        DYNAMODB_ENDPOINT: undefined,
        TABLE_NAME: options.table ?? env.TABLE_NAME,
        AWS_REGION: options.region ?? env.AWS_REGION,
      }),
    );
  }
  const local = localSettings();
  return buildAppContext(
    loadConfig({
      ...env,
      TABLE_NAME: options.table ?? env.TABLE_NAME ?? local.tableName,
      AWS_REGION: options.region ?? env.AWS_REGION ?? local.region,
      DYNAMODB_ENDPOINT: env.DYNAMODB_ENDPOINT ?? `http://${local.host}:${local.dynamodbPort}`,
    }),
  );
}
