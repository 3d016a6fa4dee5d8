// Waiting on the product's own answer, never on a fixed sleep: poll until
// it says so, within a budget that only bounds a failure's wait.

/**
 * Calls `check` every `every` ms until it returns something truthy, and
 * returns that. Past `ms`, fails naming `what` (a string, or a function
 * of nothing, for a message with the last value seen).
 */
export async function until(what, check, ms = 15_000, every = 50) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${typeof what === 'function' ? what() : what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}
