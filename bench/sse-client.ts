/**
 * Bench child process: opens SSE subscribers to one stream URL over raw node:http (one socket
 * each, keys round-robin), records when each `block` frame arrives (epoch milliseconds with
 * sub-millisecond precision: performance.timeOrigin + performance.now(), comparable across
 * processes on one machine), and reports over IPC.
 *
 * Parent → child messages: {cmd: 'report'} (send the arrivals and close every socket).
 * Child → parent: {ready: n} once every subscriber has its 200 response; {arrivals: [[block, t], …],
 * failed: n}.
 * Argv: <url> <count> <key1,key2,…>
 */
import http from 'node:http';

const [url, countArg, keysArg] = process.argv.slice(2);
const count = Number(countArg);
const keys = keysArg.split(',');
const now = () => performance.timeOrigin + performance.now();
const arrivals: Array<[number, number]> = [];
const reqs: http.ClientRequest[] = [];
let ready = 0;
let failed = 0;
const agent = new http.Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });

function open(i: number): void {
  const req = http.get(
    url,
    { agent, headers: { 'x-api-key': keys[i % keys.length], accept: 'text/event-stream' } },
    (res) => {
      if (res.statusCode !== 200) {
        failed++;
        res.resume();
      } else ready++;
      if (ready + failed === count) process.send?.({ ready, failed });
      let buf = '';
      let event = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const t = now();
        buf += chunk;
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line.startsWith('event: ')) event = line.slice(7);
          else if (line.startsWith('data: ') && event === 'block') {
            const m = /"number":"?(0x[0-9a-fA-F]+|\d+)/.exec(line); // the node's header: hex quantity
            if (m) arrivals.push([Number(m[1]), t]);
          }
        }
      });
    },
  );
  req.on('error', () => {
    failed++;
    if (ready + failed === count) process.send?.({ ready, failed });
  });
  reqs.push(req);
}

for (let i = 0; i < count; i++) open(i);
process.on('message', (m: { cmd: string }) => {
  if (m.cmd !== 'report') return;
  process.send?.({ arrivals, failed }, () => {
    for (const r of reqs) r.destroy();
    process.exit(0);
  });
});
