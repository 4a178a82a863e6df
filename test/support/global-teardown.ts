export default async function globalTeardown(): Promise<void> {
  const servers = ((globalThis as Record<string, unknown>).__localServers ?? []) as Array<{
    stop(): Promise<void>;
  }>;
  await Promise.all(servers.map((server) => server.stop()));
}
