import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { UnsupportedMediaTypeError } from '#domain/shared/errors';
import { headerValue } from '../headers';

/**
 * A JSON body is read as UTF-8 (RFC 8259), so a charset parameter naming anything else would be
 * decoded wrongly and stored garbled: refuse it with 415 before the body parser runs. No charset,
 * or utf-8 (any case, quoted or not), passes. A wrong media type is left to the body parser (400).
 */
const JSON_TYPE = /^application\/(?:[^;]+\+)?json$/i;
const UTF8 = new Set(['utf-8', 'utf8']);

export function jsonCharset(): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    before: (request) => {
      const [type = '', ...parameters] = (headerValue(request.event, 'content-type') ?? '').split(';');
      if (!JSON_TYPE.test(type.trim())) return;
      for (const parameter of parameters) {
        const [name = '', ...rest] = parameter.split('=');
        if (name.trim().toLowerCase() !== 'charset') continue;
        const charset = rest.join('=').trim().replace(/^"(.*)"$/, '$1').toLowerCase();
        if (!UTF8.has(charset)) {
          throw new UnsupportedMediaTypeError(
            `Content-Type: charset "${charset.slice(0, 40)}" is not supported; send JSON as UTF-8 (charset=utf-8 or no charset).`,
            'Content-Type',
          );
        }
      }
    },
  };
}
