/**
 * What the CLI shows on stderr while it waits for a task. On a terminal: one line redrawn in
 * place with a spinner and the elapsed time. Otherwise (a pipe, a CI log): a plain line when
 * the status changes and then every PLAIN_EVERY_MS, so logs stay short and readable.
 */
export interface Progress {
  /** The task as of the last poll. */
  update(status: string): void;
  /** Clears the spinner line (the caller prints the outcome). */
  stop(): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const PLAIN_EVERY_MS = 15_000;

export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

export function startProgress(stream: ProgressStream, id: string, now: () => number = Date.now): Progress {
  const started = now();
  const elapsed = () => `${Math.round((now() - started) / 1000)}s`;
  let status = 'starting';

  if (stream.isTTY) {
    let frame = 0;
    const draw = () => stream.write(`\r\x1b[2K${FRAMES[frame++ % FRAMES.length]} ${id} ${status} ${elapsed()}`);
    draw();
    const timer = setInterval(draw, 100);
    timer.unref();
    return {
      update(next) {
        status = next;
      },
      stop() {
        clearInterval(timer);
        stream.write('\r\x1b[2K');
      },
    };
  }

  let lastLine: number | undefined;
  return {
    update(next) {
      const changed = next !== status;
      status = next;
      if (changed || lastLine === undefined || now() - lastLine >= PLAIN_EVERY_MS) {
        lastLine = now();
        stream.write(`${id} ${status} (${elapsed()})\n`);
      }
    },
    stop() {},
  };
}
