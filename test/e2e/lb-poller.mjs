// ha.e2e's measure of the API through the load balancer: `node lb-poller.mjs URL OUT STOP`.
//
// One GET of URL at a time, each on a new connection (so the LB balances every one), each cut at
// 1 s, with a 100 ms pause between the end of one and the start of the next, until the file STOP
// exists. Each answer is appended to OUT as "start end code error" (ms since the epoch; code 000
// and an error name when there was no HTTP answer).
//
// Why a long-lived process and not a shell loop of curl: on a loaded CI machine the loop's own
// forks (date, curl, date) took over a second each round, and that time counted as the API being
// away (a 4.5 s "gap" of which 1.3 s was the loop waiting to fork). Here the only overhead is the
// event loop; what remains of it is measured (the pause beyond the planned 100 ms) so the test can
// tell it apart from the API's own gaps.
import https from 'node:https';
import { appendFileSync, existsSync } from 'node:fs';

const [url, out, stop] = process.argv.slice(2);
if (!url || !out || !stop) {
  console.error('usage: lb-poller.mjs URL OUT STOP');
  process.exit(2);
}
const TIMEOUT_MS = 1000;
const PAUSE_MS = 100;

/** One GET: resolves with the HTTP status, or 000 and why there was none. */
function ask() {
  return new Promise((resolve) => {
    const req = https.get(url, { rejectUnauthorized: false, agent: false, timeout: TIMEOUT_MS }, (res) => {
      res.resume();
      res.on('end', () => resolve({ code: String(res.statusCode ?? 0), error: '-' }));
      res.on('error', (e) => resolve({ code: '000', error: e.code ?? 'error' }));
    });
    // `timeout` above is the socket's idle time; this bounds the whole request, as curl's --max-time did.
    const cut = setTimeout(() => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })), TIMEOUT_MS);
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (e) => resolve({ code: '000', error: e.code ?? 'error' }));
    req.on('close', () => clearTimeout(cut));
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
while (!existsSync(stop)) {
  const start = Date.now();
  const { code, error } = await ask();
  appendFileSync(out, `${start} ${Date.now()} ${code} ${error}\n`);
  await sleep(PAUSE_MS);
}
