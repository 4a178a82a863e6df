import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  AllowedMethods,
  type BehaviorOptions,
  CachePolicy,
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
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { CustomDomain } from '../deploy-settings';
import { PUBLIC_MEDIA_PREFIXES } from '../function-permissions';

export interface MediaStorageProps {
  /** RETAIN both buckets; otherwise they (and their objects) go with the stack. */
  production: boolean;
  cdnDomain?: CustomDomain;
  /** A global (us-east-1) WAF web ACL for the CDN. */
  cdnWebAclArn?: string;
}

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
        { id: 'expire-incoming', prefix: 'incoming/', expiration: Duration.days(1) },
        { id: 'expire-provider-sim', prefix: 'provider-sim/', expiration: Duration.days(7) },
        { id: 'abort-incomplete-multipart-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      ...removal,
    });

    const originAccessControl = new S3OriginAccessControl(this, 'OriginAccessControl', {
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
    // Everything outside the public prefixes is answered at the edge, without touching S3.
    const notFound = new CloudFrontFunction(this, 'NotFound', {
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Paths outside the public media prefixes: 404',
      code: FunctionCode.fromInline(
        'function handler(event) { return { statusCode: 404, statusDescription: "Not Found" }; }',
      ),
    });

    const domain = props.cdnDomain;
    this.distribution = new Distribution(this, 'Cdn', {
      comment: `vidgen media (${Stack.of(this).stackName})`,
      defaultBehavior: {
        ...media,
        functionAssociations: [{ function: notFound, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: Object.fromEntries(PUBLIC_MEDIA_PREFIXES.map((prefix) => [`${prefix}*`, media])),
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_ALL,
      enableLogging: true,
      logBucket: this.logBucket,
      logFilePrefix: 'cdn/',
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
}
