// The yardstick of `npm run load`: Fastify's hello world, in its own process on the same machine.
import Fastify from 'fastify';

const app = Fastify();
app.get('/', async () => ({ hello: 'world' }));
await app.listen({ host: '127.0.0.1', port: 0 });
console.log(`listening on ${app.server.address().port}`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
