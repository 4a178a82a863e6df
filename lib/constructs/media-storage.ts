import { Annotations, Aws, CfnCondition, Duration, Fn, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  type BehaviorOptions,
  CachePolicy,
  type CfnDistribution,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HttpVersion,
  PriceClass,
  ResponseHeadersPolicy,
  S3OriginAccessControl,
  SecurityPolicyProtocol,
  Signing,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, StorageClass } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { CustomDomain } from '../deploy-settings';
import { isOutputKey, OUTPUT_CACHE_SECONDS } from '#adapters/s3/media-layout';
import { PUBLIC_MEDIA_PREFIXES } from '../function-permissions';

export interface MediaStorageProps {
  /** RETAIN both buckets; otherwise they (and their objects) go with the stack. */
  production: boolean;
  cdnDomain?: CustomDomain;
  /** A global (us-east-1) WAF web ACL for the CDN. */
  cdnWebAclArn?: string;
  /** CloudFront standard logs into the log bucket, where CloudFront delivers them (see below). */
  cdnLogs: boolean;
}

/**
 * The regions whose S3 buckets receive CloudFront standard logs: the ones enabled by default.
 * CloudFront does not deliver them to buckets in opt-in regions (af-south-1, ap-east-1,
 * eu-south-1, me-south-1 and the newer ones); an allow-list keeps a region added later on the
 * safe side (no logs rather than a failed deploy).
 */
export const CDN_LOG_REGIONS = [
  'us-east-1', 'us-east-2', 'us-west-1', 'us-west-2', 'ca-central-1', 'sa-east-1',
  'eu-west-1', 'eu-west-2', 'eu-west-3', 'eu-central-1', 'eu-north-1',
  'ap-south-1', 'ap-northeast-1', 'ap-northeast-2', 'ap-northeast-3', 'ap-southeast-1', 'ap-southeast-2',
] as const;

/**
 * The media bucket and the CDN in front of it.
 *
 * - The bucket is private: public access blocked, SSE-S3, TLS only. Objects are public only
 *   through CloudFront, with an Origin Access Control whose bucket-policy grant names the
 *   public prefixes (videos/, images/, uploads/: functions/adapters/s3/media-layout.ts) and nothing
 *   else: incoming/ (unchecked direct uploads) and provider-sim/ (job state) are never served.
 * - incoming/ expires after a day, as do incomplete multipart uploads; provider-sim/ (the
 *   simulated provider's jobs and renders, copied elsewhere once done) after a week.
 * - Access logs of both go to a separate log bucket.
 */
export class MediaStorage extends Construct {
  readonly bucket: Bucket;
  readonly logBucket: Bucket;
  readonly distribution: Distribution;
  /** https://<cdn domain>, without a trailing slash: PUBLIC_MEDIA_BASE_URL. */
  readonly publicBaseUrl: string;
  /** 'on', 'off', or decided at deploy time by the region (an environment-agnostic synth). */
  readonly cdnLogs: 'on' | 'off' | 'by-region';

  constructor(scope: Construct, id: string, props: MediaStorageProps) {
    super(scope, id);
    const removal = props.production
      ? { removalPolicy: RemovalPolicy.RETAIN }
      : { removalPolicy: RemovalPolicy.DESTROY, autoDeleteObjects: true };

    this.logBucket = new Bucket(this, 'AccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // CloudFront's standard logs are delivered with an ACL grant.
      objectOwnership: ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ id: 'expire-logs', expiration: Duration.days(props.production ? 365 : 30) }],
      ...removal,
    });
    Validations.of(this.logBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This is the access-log bucket of the media bucket and the CDN; logging it into itself would loop.',
    });

    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: this.logBucket,
      serverAccessLogsPrefix: 'media-bucket/',
      lifecycleRules: [
        // Unchecked direct uploads nobody completed (a completed one moves to uploads/ at once).
        { id: 'expire-incoming', prefix: 'incoming/', expiration: Duration.days(1) },
        { id: 'expire-provider-sim', prefix: 'provider-sim/', expiration: Duration.days(7) },
        { id: 'abort-incomplete-multipart-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        // Results and reference images are read often at first and rarely after: Intelligent-
        // Tiering moves them to cheaper tiers by access, with no retrieval fee and no expiry
        // (clients keep their URLs). S3 does not transition objects under 128 KB.
        ...(['videos/', 'images/', 'uploads/'] as const).map((prefix) => ({
          id: `intelligent-tiering-${prefix.slice(0, -1)}`,
          prefix,
          transitions: [{ storageClass: StorageClass.INTELLIGENT_TIERING, transitionAfter: Duration.days(0) }],
        })),
      ],
      ...removal,
    });

    const originAccessControl = new S3OriginAccessControl(this, 'OriginAccessControl', {
      // OAC names are unique per account (CloudFront is global): the region keeps two regions'
      // deployments of one stage apart.
      originAccessControlName: `${Stack.of(this).stackName}-media-${Aws.REGION}`,
      signing: Signing.SIGV4_ALWAYS,
      description: 'CloudFront reads the public prefixes of the media bucket',
    });
    // Not withOriginAccessControl(): its bucket policy would open the whole bucket (incoming/ too).
    const origin = S3BucketOrigin.withBucketDefaults(this.bucket, {
      originAccessControlId: originAccessControl.originAccessControlId,
    });
    const media: BehaviorOptions = {
      origin,
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
      cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      responseHeadersPolicy: ResponseHeadersPolicy.SECURITY_HEADERS,
      compress: true,
    };
    // Results can be deleted (DELETE, retention) and their old URLs must answer 404 within 5
    // minutes: edges and regional caches keep them at most 2 minutes each (docs/decisions.md,
    // "Old URLs after a deletion"). Revalidation is a conditional GET; nothing per deletion.
    const outputs: BehaviorOptions = {
      ...media,
      cachePolicy: new CachePolicy(this, 'MediaShortCache', {
        comment: 'Results (videos/, images/): at most 2 minutes, so a deleted one stops being served within 5',
        minTtl: Duration.seconds(0),
        defaultTtl: Duration.seconds(OUTPUT_CACHE_SECONDS),
        maxTtl: Duration.seconds(OUTPUT_CACHE_SECONDS),
        enableAcceptEncodingGzip: true,
        enableAcceptEncodingBrotli: true,
      }),
    };
    const behaviorOf = (prefix: string) => (isOutputKey(prefix) ? outputs : media);
    // Everything outside the public prefixes is answered at the edge, without touching S3.
    const notFound = new CloudFrontFunction(this, 'NotFound', {
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Paths outside the public media prefixes: 404',
      code: FunctionCode.fromInline(
        'function handler(event) { return { statusCode: 404, statusDescription: "Not Found" }; }',
      ),
    });

    const domain = props.cdnDomain;
    this.cdnLogs = this.cdnLogMode(props.cdnLogs);
    this.distribution = new Distribution(this, 'Cdn', {
      comment: `vidgen media (${Stack.of(this).stackName})`,
      defaultBehavior: {
        ...media,
        functionAssociations: [{ function: notFound, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: Object.fromEntries(PUBLIC_MEDIA_PREFIXES.map((prefix) => [`${prefix}*`, behaviorOf(prefix)])),
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_ALL,
      ...(this.cdnLogs !== 'off' && { enableLogging: true, logBucket: this.logBucket, logFilePrefix: 'cdn/' }),
      ...(domain && {
        domainNames: [domain.domainName],
        certificate: Certificate.fromCertificateArn(this, 'Certificate', domain.certificateArn),
        minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
      }),
      ...(props.cdnWebAclArn && { webAclId: props.cdnWebAclArn }),
    });

    const fromThisDistribution = { StringEquals: { 'AWS:SourceArn': this.distribution.distributionArn } };
    this.bucket.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CdnReadsPublicPrefixes',
        principals: [new ServicePrincipal('cloudfront.amazonaws.com')],
        actions: ['s3:GetObject'],
        resources: PUBLIC_MEDIA_PREFIXES.map((prefix) => this.bucket.arnForObjects(`${prefix}*`)),
        conditions: fromThisDistribution,
      }),
    );
    // Lets S3 tell CloudFront 404 (not 403) for a missing file; viewers cannot list through the CDN.
    this.bucket.addToResourcePolicy(
      new PolicyStatement({
        sid: 'CdnSeesMissingObjects',
        principals: [new ServicePrincipal('cloudfront.amazonaws.com')],
        actions: ['s3:ListBucket'],
        resources: [this.bucket.bucketArn],
        conditions: fromThisDistribution,
      }),
    );

    this.applyCdnLogMode(this.cdnLogs, props.cdnLogs);

    this.publicBaseUrl = `https://${domain?.domainName ?? this.distribution.distributionDomainName}`;

    Validations.of(this.distribution).acknowledge({
      id: 'AwsSolutions-CFR1',
      reason: 'Generated media is served to API users worldwide; there is no country to exclude.',
    });
    if (!props.cdnWebAclArn) {
      Validations.of(this.distribution).acknowledge({
        id: 'AwsSolutions-CFR2',
        reason: 'Static, read-only media behind unguessable ids; attach a web ACL with -c cdnWebAclArn=... where one is required.',
      });
    }
    if (!domain) {
      Validations.of(this.distribution).acknowledge({
        id: 'AwsSolutions-CFR4',
        reason: 'Without a custom domain CloudFront serves its default *.cloudfront.net certificate, whose TLS policy cannot be chosen; set cdnDomainName and cdnCertificateArn to get TLSv1.2_2021.',
      });
    }
  }

  /**
   * CloudFront standard logs only where CloudFront delivers them. A synth for a known region
   * decides now; an environment-agnostic one leaves it to CloudFormation (a condition on
   * AWS::Region), so the same template deploys everywhere and logs wherever it can.
   */
  private cdnLogMode(wanted: boolean): 'on' | 'off' | 'by-region' {
    const region = Stack.of(this).region;
    if (!wanted) return 'off';
    if (Token.isUnresolved(region)) return 'by-region';
    if ((CDN_LOG_REGIONS as readonly string[]).includes(region)) return 'on';
    Annotations.of(this).addWarningV2(
      'vidgen:cdn-logs-region',
      `CloudFront does not deliver standard logs to buckets in ${region} (an opt-in region): the CDN has no standard logs here.`,
    );
    return 'off';
  }

  private applyCdnLogMode(mode: 'on' | 'off' | 'by-region', wanted: boolean): void {
    if (mode === 'off') {
      Validations.of(this.distribution).acknowledge({
        id: 'AwsSolutions-CFR3',
        reason: `${wanted ? `CloudFront does not deliver standard logs to buckets in ${Stack.of(this).region}` : 'CDN standard logs are switched off with -c cdnLogs=false'}; the media bucket's own S3 access logs and the API's logs remain.`,
      });
    }
    if (mode !== 'by-region') return;
    const deliverable = new CfnCondition(this, 'CdnLogsDeliverable', { expression: anyRegionOf(CDN_LOG_REGIONS) });
    (this.distribution.node.defaultChild as CfnDistribution).addPropertyOverride(
      'DistributionConfig.Logging',
      Fn.conditionIf(
        deliverable.logicalId,
        { Bucket: this.logBucket.bucketRegionalDomainName, IncludeCookies: false, Prefix: 'cdn/' },
        Aws.NO_VALUE,
      ),
    );
  }
}

/** Fn::Or takes 2 to 10 conditions: nest them for a longer list. */
function anyRegionOf(regions: readonly string[]): ReturnType<typeof Fn.conditionOr> {
  const equals = regions.map((region) => Fn.conditionEquals(Aws.REGION, region));
  const chunks: (typeof equals)[] = [];
  for (let i = 0; i < equals.length; i += 9) chunks.push(equals.slice(i, i + 9));
  const ors = chunks.map((chunk) => (chunk.length === 1 ? chunk[0]! : Fn.conditionOr(...chunk)));
  return ors.length === 1 ? (ors[0] as ReturnType<typeof Fn.conditionOr>) : Fn.conditionOr(...ors);
}
