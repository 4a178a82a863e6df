import { Duration, RemovalPolicy, Size, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  AuthorizationType,
  BasePathMapping,
  DomainName,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  type IResource,
  type Method,
  MethodLoggingLevel,
  MockIntegration,
  PassthroughBehavior,
  RequestAuthorizer,
  ResponseTransferMode,
  ResponseType,
  RestApi,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, LogRetention, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { GATEWAY_RESPONSES, type GatewayResponse } from '#contract/gateway-responses';
import { gatewayAccess, STREAMED_ROUTE_TIMEOUT_SECONDS } from '#http/route';
import { API_PREFIX, BINARY_MEDIA_TYPES, type Route } from '#http/routes/index';
import type { CustomDomain } from '../deploy-settings';

/** The id CDK gives the one LogRetention function of a stack. */
const LOG_RETENTION_SINGLETON_ID = 'LogRetentionaae0aa3c5b4d4f87b02d85b201efdd8a';

/**
 * Routes whose callers are `public` (the API reference, the provider's signed callbacks) skip the
 * authorizer; every other route passes it (it knows API keys and sessions).
 */
export const isPublicRoute = (route: Route): boolean => gatewayAccess(route) === 'public';

/**
 * Platform answers that must arrive in our envelope, and which GATEWAY_RESPONSES entry each
 * uses, so the local stack (bin/local-stack) and API Gateway answer alike.
 *   MISSING_AUTHENTICATION_TOKEN is API Gateway's answer for an unknown path or method (also
 *     the "Authorization header requires 'Credential' parameter" variant when a Bearer header
 *     is present): 404 not_found.
 *   ACCESS_DENIED: the authorizer's Deny, which it answers only for an expired key (a thrown
 *     "Unauthorized" cannot carry a reason): 401 unauthorized saying the key expired.
 *   DEFAULT_4XX / DEFAULT_5XX catch the rest (malformed request, authorizer crash, Lambda
 *     error or timeout) with a status that matches the envelope's code.
 */
type GatewayResponseName = keyof typeof GATEWAY_RESPONSES;
export const GATEWAY_RESPONSE_MAP: ReadonlyArray<{ type: ResponseType; response: GatewayResponseName }> = [
  { type: ResponseType.UNAUTHORIZED, response: 'unauthorized' },
  { type: ResponseType.ACCESS_DENIED, response: 'expired' },
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, response: 'notFound' },
  { type: ResponseType.REQUEST_TOO_LARGE, response: 'payloadTooLarge' },
  { type: ResponseType.THROTTLED, response: 'throttled' },
  { type: ResponseType.DEFAULT_4XX, response: 'badRequest' },
  { type: ResponseType.DEFAULT_5XX, response: 'internal' },
];

export function gatewayResponse(name: GatewayResponseName): GatewayResponse {
  return GATEWAY_RESPONSES[name];
}

/** The response template: the envelope as JSON. `$` would start a variable in API Gateway's templates. */
export function gatewayResponseTemplate(response: GatewayResponse): string {
  const body = JSON.stringify(response.body);
  if (body.includes('$')) throw new Error(`Gateway response bodies must not contain "$": ${body}`);
  return body;
}

/**
 * A method the route refuses (`Route.refusedMethods`), answered by API Gateway itself as the local
 * gateway answers it: 405 `method_not_allowed`, `Allow: <the route's method>`, in the envelope.
 * A mock integration without an authorizer: nothing to guard, no function to run. Its one
 * integration response is the default (no selection pattern), so every request gets it whatever
 * its Content-Type: https://docs.aws.amazon.com/apigateway/latest/developerguide/how-to-mock-integration.html
 */
function refuseMethod(resource: IResource, httpMethod: string, route: Route): Method {
  const refused = gatewayResponse('methodNotAllowed');
  const headers: Record<string, string> = {
    'method.response.header.Allow': `'${route.method}'`,
    'method.response.header.Content-Type': "'application/json'",
    'method.response.header.X-Request-Id': 'context.requestId',
  };
  const method = resource.addMethod(
    httpMethod,
    new MockIntegration({
      passthroughBehavior: PassthroughBehavior.WHEN_NO_MATCH,
      requestTemplates: { 'application/json': `{"statusCode": ${refused.status}}` },
      integrationResponses: [
        { statusCode: String(refused.status), responseParameters: headers, responseTemplates: { 'application/json': gatewayResponseTemplate(refused) } },
      ],
    }),
    {
      authorizationType: AuthorizationType.NONE,
      authorizer: undefined,
      methodResponses: [{ statusCode: String(refused.status), responseParameters: Object.fromEntries(Object.keys(headers).map((name) => [name, true])) }],
    },
  );
  Validations.of(method).acknowledge({
    id: 'AwsSolutions-APIG4',
    reason: `${httpMethod} ${route.path} only answers 405 (Allow: ${route.method}) from a mock integration: no function runs, nothing to guard.`,
  });
  return method;
}

export interface RestApiProps {
  stage: string;
  routes: readonly Route[];
  functionFor: (handler: string) => IFunction;
  authorizer: IFunction;
  authCacheTtlSeconds: number;
  throttle: { rateLimit: number; burstLimit: number };
  logRetention: RetentionDays;
  retainLogs: boolean;
  domain?: CustomDomain;
  webAclArn?: string;
}

/**
 * The REST API at /api/v1, built from the route table: one resource per path, one Lambda proxy
 * method per route, the REQUEST authorizer on every method unless the route is public.
 */
export class VidGenRestApi extends Construct {
  readonly api: RestApi;
  readonly accessLogs: LogGroup;
  readonly authorizer: RequestAuthorizer;
  readonly methods: Method[] = [];
  /** https://…/api/v1 (the custom domain when there is one). */
  readonly url: string;
  /**
   * The same address for the functions' own environment (the provider's callback route): built
   * from the API's id and the stage's name, not from the stage resource, which depends on the
   * functions through its deployment (a cycle otherwise).
   */
  readonly callbackBaseUrl: string;
  readonly domainName?: DomainName;

  constructor(scope: Construct, id: string, props: RestApiProps) {
    super(scope, id);

    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.retainLogs ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });

    this.authorizer = new RequestAuthorizer(this, 'ApiKeyAuthorizer', {
      authorizerName: `vidgen-${props.stage}-api-key`,
      handler: props.authorizer,
      identitySources: [IdentitySource.header('Authorization')],
      // The same TTL the functions are told (AUTH_CACHE_TTL_SECONDS) and the local stack uses.
      resultsCacheTtl: Duration.seconds(props.authCacheTtlSeconds),
    });

    this.api = new RestApi(this, 'Api', {
      restApiName: `vidgen-${props.stage}`,
      description: 'Video and image generation API (routes from functions/http/routes/)',
      endpointTypes: [EndpointType.REGIONAL],
      binaryMediaTypes: [...BINARY_MEDIA_TYPES],
      minCompressionSize: Size.kibibytes(1),
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: props.stage,
        tracingEnabled: true,
        metricsEnabled: true,
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        throttlingRateLimit: props.throttle.rateLimit,
        throttlingBurstLimit: props.throttle.burstLimit,
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: AccessLogFormat.custom(
          JSON.stringify({
            requestId: AccessLogField.contextRequestId(),
            extendedRequestId: AccessLogField.contextExtendedRequestId(),
            requestTime: AccessLogField.contextRequestTime(),
            ip: AccessLogField.contextIdentitySourceIp(),
            userAgent: AccessLogField.contextIdentityUserAgent(),
            httpMethod: AccessLogField.contextHttpMethod(),
            resourcePath: AccessLogField.contextResourcePath(),
            path: AccessLogField.contextPath(),
            protocol: AccessLogField.contextProtocol(),
            status: AccessLogField.contextStatus(),
            responseLength: AccessLogField.contextResponseLength(),
            responseLatency: AccessLogField.contextResponseLatency(),
            integrationStatus: AccessLogField.contextIntegrationStatus(),
            integrationLatency: AccessLogField.contextIntegrationLatency(),
            accountId: AccessLogField.contextAuthorizer('accountId'),
            keyId: AccessLogField.contextAuthorizer('keyId'),
            authorizerStatus: AccessLogField.contextAuthorizerIntegrationStatus(),
            authorizerLatency: AccessLogField.contextAuthorizerLatency(),
            authorizerError: AccessLogField.contextAuthorizerError(),
            errorType: AccessLogField.contextErrorResponseType(),
            errorMessage: AccessLogField.contextErrorMessageString(),
            xrayTraceId: AccessLogField.contextXrayTraceId(),
          }),
        ),
      },
      defaultMethodOptions: { authorizationType: AuthorizationType.CUSTOM, authorizer: this.authorizer },
    });

    // API Gateway writes execution logs (ERROR level) to a group it creates itself, without a
    // retention. LogRetention (a CDK custom resource) sets one whether API Gateway has created
    // the group already (a stack deployed before this) or not yet; a plain LogGroup of that
    // name would fail on "already exists" in the first case. The group outlives the stack
    // (its events still expire), which spares the custom resource a DeleteLogGroup grant.
    new LogRetention(this, 'ExecutionLogRetention', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${props.stage}`,
      retention: props.logRetention,
    });
    const logRetentionFunction = Stack.of(this).node.tryFindChild(LOG_RETENTION_SINGLETON_ID);
    if (logRetentionFunction) {
      Validations.of(logRetentionFunction).acknowledge(
        {
          id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
          reason: "CDK's LogRetention custom resource (sets the execution-log group's retention): AWS's basic policy lets it write its own logs.",
        },
        {
          id: 'AwsSolutions-IAM5[Resource::*]',
          reason: "CDK's LogRetention custom resource puts retention policies on log groups it is told about at deploy time; CDK grants the two retention actions on any group.",
        },
      );
    }

    // RestApi's own output is the stage URL without /api/v1; the stack outputs ApiUrl instead.
    this.api.node.tryRemoveChild('Endpoint');

    for (const route of props.routes) {
      if (!route.path.startsWith(`${API_PREFIX}/`)) {
        throw new Error(`Route ${route.method} ${route.path} is outside ${API_PREFIX}.`);
      }
      const open = isPublicRoute(route);
      const integration = new LambdaIntegration(props.functionFor(route.handler), {
        allowTestInvoke: false,
        // Streamed as the function writes it (InvokeWithResponseStream), past the buffered 29 s.
        ...(route.streaming && { responseTransferMode: ResponseTransferMode.STREAM, timeout: Duration.seconds(STREAMED_ROUTE_TIMEOUT_SECONDS) }),
      });
      const resource = this.api.root.resourceForPath(route.path);
      const method = resource.addMethod(
        route.method,
        integration,
        open ? { authorizationType: AuthorizationType.NONE, authorizer: undefined } : {},
      );
      this.methods.push(method);
      for (const refused of route.refusedMethods ?? []) this.methods.push(refuseMethod(resource, refused, route));
      if (open) {
        Validations.of(method).acknowledge({
          id: 'AwsSolutions-APIG4',
          reason: `${route.method} ${route.path} is public by design (callers: 'public' in the route table): it has nothing to guard or checks its own credential.`,
        });
      }
    }

    for (const { type, response: name } of GATEWAY_RESPONSE_MAP) {
      const response = gatewayResponse(name);
      this.api.addGatewayResponse(`Gateway${type.responseType}`, {
        type,
        statusCode: String(response.status),
        responseHeaders: {
          'X-Request-Id': 'context.requestId',
          'Content-Type': "'application/json'",
          // Every 429 says when to retry (the stage throttle has no window: 1 s).
          ...(response.status === 429 && { 'Retry-After': "'1'" }),
        },
        templates: { 'application/json': gatewayResponseTemplate(response) },
      });
    }

    if (props.domain) {
      this.domainName = new DomainName(this, 'Domain', {
        domainName: props.domain.domainName,
        certificate: Certificate.fromCertificateArn(this, 'Certificate', props.domain.certificateArn),
        endpointType: EndpointType.REGIONAL,
        securityPolicy: SecurityPolicy.TLS_1_2,
      });
      new BasePathMapping(this, 'Mapping', { domainName: this.domainName, restApi: this.api, stage: this.api.deploymentStage });
      this.url = `https://${props.domain.domainName}${API_PREFIX}`;
      this.callbackBaseUrl = this.url;
    } else {
      // api.url ends with the stage and a slash: https://<id>.execute-api.<region>.amazonaws.com/<stage>/
      this.url = `${this.api.url}${API_PREFIX.slice(1)}`;
      const stack = Stack.of(this);
      this.callbackBaseUrl = `https://${this.api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/${props.stage}${API_PREFIX}`;
    }

    if (props.webAclArn) {
      new CfnWebACLAssociation(this, 'WebAcl', {
        resourceArn: this.api.deploymentStage.stageArn,
        webAclArn: props.webAclArn,
      });
    } else {
      Validations.of(this.api).acknowledge({
        id: 'AwsSolutions-APIG3',
        reason: 'Every method sits behind the API-key authorizer, a per-key rate limit and stage throttling; attach a regional web ACL with -c apiWebAclArn=... where one is required.',
      });
    }
    Validations.of(this.api).acknowledge(
      {
        id: 'AwsSolutions-APIG2',
        reason: 'Requests are validated in each function (zod), so that errors carry the contract envelope and name the offending field; a gateway validator would answer with its own body.',
      },
      {
        id: 'AwsSolutions-COG4',
        reason: "One Lambda REQUEST authorizer takes both API keys and the account holders' Cognito access tokens (verified against the user pool's JWKS with aws-jwt-verify); a Cognito user pool authorizer could not take API keys.",
      },
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason: "API Gateway's account-level CloudWatch role for execution logs; AWS maintains this policy for exactly that purpose.",
      },
    );
  }
}
