import { Aws, DefaultStackSynthesizer, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  Function as CloudFrontFunction,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  SecurityPolicyProtocol,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { STREAMED_ROUTE_TIMEOUT_SECONDS } from '#http/route';
import { ensureConsoleBuiltSync } from '../console-build';
import { acknowledgeWildcardResource } from '../nag';
import { CONSOLE_HEADERS, consoleContentSecurityPolicy } from '../console-security';
import type { CustomDomain } from '../deploy-settings';

/** What /console/config.json tells the app (console/src/config.ts). */
export interface ConsoleIdentity {
  /** The user pool's public app client (no secret). */
  userPoolClientId: string;
}

export interface ConsoleSiteProps {
  /** The REST API behind `/api/v1/*` of the same distribution: the console calls it on its own origin, no CORS. */
  api: { restApiId: string; stage: string };
  /** The API's public base URL (…/api/v1), shown in the quick start. */
  publicApiUrl: string;
  /** The media CDN (https://…), where thumbnails, videos and images come from. */
  mediaBaseUrl: string;
  identity: ConsoleIdentity;
  domain?: CustomDomain;
  /** A global (CloudFront) web ACL; the stage's `cdnWebAclArn`. */
  webAclArn?: string;
}

/** The console's path on the distribution; the app is built with this base. */
export const CONSOLE_PREFIX = 'console/';

/**
 * The console on AWS: its built files in a private bucket read by CloudFront (origin access
 * control), the API behind /api/v1/* of the same distribution, security headers on every
 * answer, and the single-page fallback (a path under /console/ without a file extension is the
 * app's index.html). config.json is written at deploy time from the stage's resources, so one
 * build serves every stage.
 */
export class ConsoleSite extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  readonly headers: ResponseHeadersPolicy;
  /** https://<distribution>/console/ */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ConsoleSiteProps) {
    super(scope, id);
    // Build output only, deployed again by every `cdk deploy`: nothing to retain.
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: true,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'The console bucket holds only the built app, replaced by every deploy and read only by CloudFront; its requests are in CloudFront, not S3 access logs.',
    });

    const identityEndpoint = `https://cognito-idp.${Aws.REGION}.amazonaws.com`;
    this.headers = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'vidgen console: CSP, HSTS, no framing, no sniffing',
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          contentSecurityPolicy: consoleContentSecurityPolicy({ connect: [identityEndpoint], media: [props.mediaBaseUrl] }),
          override: true,
        },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.seconds(CONSOLE_HEADERS.strictTransportSecurity.maxAgeSeconds),
          includeSubdomains: CONSOLE_HEADERS.strictTransportSecurity.includeSubdomains,
          override: true,
        },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, override: true },
      },
    });

    const spaFallback = new CloudFrontFunction(this, 'SpaFallback', {
      runtime: FunctionRuntime.JS_2_0,
      comment: 'The console: / goes to /console/; its pages are index.html',
      code: FunctionCode.fromInline(
        [
          'function handler(event) {',
          '  var uri = event.request.uri;',
          "  if (uri === '/' || uri === '/console') return { statusCode: 308, statusDescription: 'Permanent Redirect', headers: { location: { value: '/console/' } } };",
          "  if (uri.indexOf('/console/') === 0 && uri.lastIndexOf('.') < uri.lastIndexOf('/')) event.request.uri = '/console/index.html';",
          '  return event.request;',
          '}',
        ].join('\n'),
      ),
    });

    const stack = Stack.of(this);
    this.distribution = new Distribution(this, 'Cdn', {
      comment: `vidgen console (${stack.stackName})`,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.headers,
        compress: true,
        functionAssociations: [{ function: spaFallback, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        'api/v1/*': {
          origin: new HttpOrigin(`${props.api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}`, {
            originPath: `/${props.api.stage}`,
            protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
            // A streamed route may go quiet for as long as it runs (an MCP wait of up to 50 s),
            // longer than CloudFront's default 30 s between bytes.
            readTimeout: Duration.seconds(STREAMED_ROUTE_TIMEOUT_SECONDS),
          }),
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          // Every answer is the account's own: never cached; the key and Vidgen-Mode reach the API.
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: this.headers,
        },
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
      ...(props.domain && {
        domainNames: [props.domain.domainName],
        certificate: Certificate.fromCertificateArn(this, 'Certificate', props.domain.certificateArn),
        minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
      }),
      ...(props.webAclArn && { webAclId: props.webAclArn }),
    });
    this.url = `https://${props.domain?.domainName ?? this.distribution.distributionDomainName}/${CONSOLE_PREFIX}`;

    const deployment = new BucketDeployment(this, 'Deploy', {
      destinationBucket: this.bucket,
      destinationKeyPrefix: CONSOLE_PREFIX,
      sources: [
        // The build of the current sources (made now if missing; see lib/console-build.ts).
        Source.asset(ensureConsoleBuiltSync().dir),
        Source.jsonData('config.json', {
          apiBaseUrl: '/api/v1',
          publicApiUrl: props.publicApiUrl,
          identityEndpoint,
          userPoolClientId: props.identity.userPoolClientId,
          region: Aws.REGION,
        }),
      ],
      distribution: this.distribution,
      distributionPaths: [`/${CONSOLE_PREFIX}*`],
      memoryLimit: 256,
    });
    acknowledgeDeploymentHandler(deployment, this.bucket);

    Validations.of(this.distribution).acknowledge({ id: 'AwsSolutions-CFR1', reason: 'The console is for account holders worldwide; there is no country to exclude.' });
    if (!props.webAclArn) {
      Validations.of(this.distribution).acknowledge({
        id: 'AwsSolutions-CFR2',
        reason: 'Static files plus the API, which has its own throttling and per-key rate limits; attach a web ACL with -c cdnWebAclArn=... where one is required.',
      });
    }
    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR3',
      reason: 'The console is static files; the API behind it logs every request in its access logs.',
    });
    if (!props.domain) {
      Validations.of(this.distribution).acknowledge({
        id: 'AwsSolutions-CFR4',
        reason: 'Without a custom domain CloudFront serves its default *.cloudfront.net certificate, whose TLS policy cannot be chosen; set consoleDomainName and consoleCertificateArn to get TLSv1.2_2021.',
      });
    }
  }
}

/**
 * BucketDeployment's handler is CDK's own function (one per stack, its runtime chosen by CDK):
 * it copies the build from CDK's asset bucket into the console bucket and invalidates the
 * distribution, with the grants CDK gives it.
 */
function acknowledgeDeploymentHandler(deployment: BucketDeployment, bucket: Bucket): void {
  const role = deployment.handlerRole;
  const handler = role.node.scope as Construct;
  const why = 'CDK\'s BucketDeployment handler copies the console build into its bucket and invalidates the console distribution';
  Validations.of(handler).acknowledge({ id: 'AwsSolutions-L1', reason: `${why}; its runtime is chosen by aws-cdk-lib, not by this app.` });
  Validations.of(role).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    reason: `${why}; the managed policy only lets it write its own logs.`,
  });
  for (const action of ['s3:Abort*', 's3:DeleteObject*', 's3:GetBucket*', 's3:GetObject*', 's3:List*']) {
    Validations.of(role).acknowledge({ id: `AwsSolutions-IAM5[Action::${action}]`, reason: `${why}: CDK's grant on the asset and console buckets uses these action families.` });
  }
  acknowledgeWildcardResource(role, bucket.arnForObjects('*'), `${why}: it replaces every file of the console bucket.`);
  acknowledgeWildcardResource(role, '*', `${why}: CloudFront invalidations cannot be scoped to one distribution's ARN in CDK's grant.`);
  const stack = Stack.of(role);
  const assets = `arn:${stack.partition}:s3:::cdk-${DefaultStackSynthesizer.DEFAULT_QUALIFIER}-assets-${stack.account}-${stack.region}/*`;
  acknowledgeWildcardResource(role, assets, `${why}: it reads the build from CDK's bootstrap asset bucket.`);
}
