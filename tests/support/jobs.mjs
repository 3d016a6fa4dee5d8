// Waiting on a batch job the way a merchant's screen does: on the job's own
// reports. A wait is bounded by the time the job says is left (its
// `eta_seconds`, which counts a rates window or a Retry-After it is waiting
// out) plus a slack for the machine, never by a fixed guess: on a slow or
// busy machine the job reports more time left, and the wait follows it.

/** The simulator's clock moves a minute while one of the job's batches is processing (20 labels per simulated second). */
export const advanceWhileProcessing = (s) => async (job) => {
  if (job.chunks.some((c) => c.state === 'processing')) await s.sim.control('POST', '/__sim/clock/advance', { seconds: 60 });
};

/**
 * Polls `GET /api/jobs/{id}` (with `s.json`) until `done(job)`. The deadline
 * is `slack` ms past the job's latest own estimate of its end; `tick(job)`
 * runs between polls (e.g. `advanceWhileProcessing(s)`).
 */
export async function untilJob(s, id, done, { slack = 30000, every = 250, tick } = {}) {
  let deadline = Date.now() + slack;
  for (;;) {
    const job = await s.json(`/api/jobs/${id}`);
    if (done(job)) return job;
    if (job.eta_seconds != null) deadline = Math.max(deadline, Date.now() + job.eta_seconds * 1000 + slack);
    if (Date.now() > deadline) {
      const seen = { state: job.state, counts: job.counts, eta_seconds: job.eta_seconds, problem: job.problem, chunks: job.chunks };
      throw new Error(`job ${id} did not get there within its own estimate plus ${slack} ms: ${JSON.stringify(seen)}`);
    }
    if (tick) await tick(job);
    await new Promise((r) => setTimeout(r, every));
  }
}
