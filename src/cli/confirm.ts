import readline from 'node:readline';

/** Reads one line from stdin; resolves undefined at end of input (e.g. stdin is /dev/null). */
export function readAnswer(stdin: NodeJS.ReadableStream): Promise<string | undefined> {
  return new Promise((resolve) => {
    const rl = readline.createInterface({ input: stdin, terminal: false });
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      rl.close();
      resolve(line);
    });
    rl.once('close', () => {
      if (!answered) resolve(undefined);
    });
  });
}
