import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cdkJsonContext, REPO_ROOT } from './support/cdk-app';

/**
 * cdk.json sets every feature flag aws-cdk-lib recommends for a new app (so `cdk synth` has no
 * "feature flags are not configured" notice), except the ones docs/decisions.md ("CDK feature
 * flags") keeps otherwise, with why.
 */
const KEPT_OTHERWISE: Record<string, unknown> = {
  // Cross-stack values go through SSM; the legacy exports stay strong references until retired.
  '@aws-cdk/core:defaultCrossStackReferences': 'strong',
};

describe('cdk.json feature flags', () => {
  it('sets each recommended flag to its recommended value, or to the documented exception', () => {
    const recommended = JSON.parse(
      readFileSync(path.join(REPO_ROOT, 'node_modules', 'aws-cdk-lib', 'recommended-feature-flags.json'), 'utf8'),
    ) as Record<string, unknown>;
    const context = cdkJsonContext();
    const wrong = Object.entries(recommended)
      .filter(([flag, value]) => JSON.stringify(context[flag]) !== JSON.stringify(flag in KEPT_OTHERWISE ? KEPT_OTHERWISE[flag] : value))
      .map(([flag]) => flag);
    expect(wrong).toEqual([]);
  });
});
