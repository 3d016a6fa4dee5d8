// Runs startEdge in its own process (see startEdgeProcess): workerd inherits
// this process's stdout, so the parent reads the Worker's log lines.
import { startEdge } from './stack.mjs';

const edge = await startEdge(JSON.parse(process.env.PARCEL_EDGE_OPTIONS));
console.log(`EDGE_URL=${edge.url}`);
process.on('SIGTERM', async () => { await edge.stop(); process.exit(0); });
