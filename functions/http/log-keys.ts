import type { APIGatewayProxyEvent } from 'aws-lambda';

/** What names an API request on its log lines: the X-Request-Id, the account, the task or upload. */
export function apiRequestKeys(event: APIGatewayProxyEvent): Record<string, unknown> {
  const path = event.pathParameters ?? {};
  return {
    request_id: event.requestContext?.requestId,
    account_id: event.requestContext?.authorizer?.accountId,
    task_id: path.video_id ?? path.image_id,
    upload_id: path.upload_id,
  };
}
