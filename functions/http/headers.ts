/** Header lookup that ignores case, as HTTP does (API Gateway keeps the client's casing). */
export function headerValue(
  event: { headers?: Record<string, string | undefined> | null },
  name: string,
): string | undefined {
  const headers = event.headers ?? {};
  const match = Object.keys(headers).find((key) => key.toLowerCase() === name.toLowerCase());
  return match ? (headers[match] ?? undefined) : undefined;
}
