/** Whether process `pid` exists (EPERM: it does, owned by someone else). Signal 0 only asks. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
