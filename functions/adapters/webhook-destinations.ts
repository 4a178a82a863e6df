import type { DestinationPolicy } from '#domain/webhooks/ports';
import { isLoopbackHost, parseFetchableUrl, staticRefusal } from './url-rules';

/**
 * Which webhook URLs are refused when an endpoint is created: the address rules of `image_url`
 * (url-rules.ts), plus https only. Literal addresses and localhost names are judged here; a
 * hostname is resolved only when a delivery is made (safe-fetch.ts refuses it then if any of its
 * addresses is not public), since DNS may answer differently by then (docs/decisions.md).
 * `allowLoopback` is the local stack's allowance for a developer's receiver, over http or https.
 */
export function webhookDestinations(options: { allowLoopback: boolean }): DestinationPolicy {
  return {
    whyRefused(url: string): string | undefined {
      const refusal = staticRefusal(url);
      if (refusal?.reason === 'invalid_url') return 'must be an absolute https URL';
      if (refusal?.reason === 'scheme') return 'must be an https URL';
      if (refusal?.reason === 'credentials') return 'must not contain credentials';
      const target = parseFetchableUrl(url);
      if (options.allowLoopback && isLoopbackHost(target)) return undefined;
      if (refusal) {
        return `must be a public https URL: ${target.host} is not a public address (private, loopback, link-local, multicast and cloud metadata addresses are refused)`;
      }
      if (target.protocol !== 'https:') return 'must be an https URL';
      return undefined;
    },
  };
}
