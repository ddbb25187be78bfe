// Worker thread of `npm run bench -- --parts audit` (bench/auditCost.ts): the write-heavy mix, on its
// own event loop so that the client's work is not charged to the server. `concurrency` loops, each
// on its own keep-alive connection, repeat: update a user, add or remove a group member, update an
// application, update a user, add or remove a group member (40% / 40% / 20%). Each loop owns one
// group and 50 users whose membership of it it toggles, so loops never wait on each other's rows
// for that; user updates pick a user at random.
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { base, token, company, domain, users, groups, apps, concurrency } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const domainPath = `/api/companys/${company}/domainNames/${domain}`;

function request(method, path, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      base + path,
      { method, agent, headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json' } : {}) } },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode, text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

let version = 0;
/** Per loop: which of its 50 users are members of its group now (kept across runs). */
const members = Array.from({ length: concurrency }, () => new Array(50).fill(false));
const next = Array.from({ length: concurrency }, () => 0);

const OPERATIONS = ['user', 'member', 'application', 'user', 'member'];

async function operation(loop, kind) {
  if (kind === 'user') {
    const k = 1 + Math.floor(Math.random() * users);
    const n = ++version;
    return ['user update', await request('PUT', `${domainPath}/users/u${k}`, { username: `user${k}`, displayName: `User ${k} v${n}`, email: `user${k}@${company}.example` })];
  }
  if (kind === 'application') {
    const id = apps[Math.floor(Math.random() * apps.length)];
    return ['application update', await request('PUT', `/api/application/${id}`, { description: `version ${++version}` })];
  }
  const group = groups[loop % groups.length];
  const k = next[loop];
  next[loop] = (k + 1) % 50;
  const user = `u${1 + loop * 50 + k}`;
  if (members[loop][k]) {
    members[loop][k] = false;
    return ['member remove', await request('DELETE', `${domainPath}/groups/${group}/members/${user}?type=user`)];
  }
  members[loop][k] = true;
  return ['member add', await request('POST', `${domainPath}/groups/${group}/members`, [{ id: user, type: 'user' }])];
}

parentPort.on('message', async ({ ms }) => {
  const until = performance.now() + ms;
  const done = {};
  const errors = {};
  await Promise.all(
    Array.from({ length: concurrency }, async (_, loop) => {
      for (let i = loop; performance.now() < until; i++) {
        const [kind, { status, text }] = await operation(loop, OPERATIONS[i % OPERATIONS.length]);
        if (status === 200) done[kind] = (done[kind] ?? 0) + 1;
        else errors[`${kind} ${status}`] ??= text.slice(0, 200);
      }
    }),
  );
  parentPort.postMessage({ done, errors, ms: ms + (performance.now() - until) });
});
