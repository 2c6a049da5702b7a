// A small W3C WebDriver client over fetch: enough to drive the app through
// tauri-driver without pulling a test framework into the tree.

const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

export class Session {
  constructor(base, id) {
    this.base = base;
    this.id = id;
  }

  static async start(base, application) {
    const deadline = Date.now() + 20_000;
    let lastError;
    while (Date.now() < deadline) {
      try {
        const value = await call(base, "POST", "/session", {
          capabilities: { alwaysMatch: { "tauri:options": { application } } },
        });
        return new Session(base, value.sessionId);
      } catch (e) {
        // The driver was just started: ask again soon, so that the wait
        // for it adds little to what a launch is measured to take.
        lastError = e;
        await sleep(50);
      }
    }
    throw new Error(`could not start a WebDriver session: ${lastError}`);
  }

  cmd(method, path, body) {
    return call(this.base, method, `/session/${this.id}${path}`, body);
  }

  async close() {
    await this.cmd("DELETE", "").catch(() => {});
  }

  /** Waits for a CSS selector to match and returns the element id. */
  async find(css, timeoutMs = 10_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await this.cmd("POST", "/elements", { using: "css selector", value: css });
      if (found.length) return found[0][ELEMENT];
      if (Date.now() > deadline) throw new Error(`no element matches ${css} after ${timeoutMs} ms`);
      await sleep(100);
    }
  }

  async count(css) {
    return (await this.cmd("POST", "/elements", { using: "css selector", value: css })).length;
  }

  async click(css) {
    await this.cmd("POST", `/element/${await this.find(css)}/click`, {});
  }

  async type(css, text) {
    const el = await this.find(css);
    await this.cmd("POST", `/element/${el}/clear`, {});
    await this.cmd("POST", `/element/${el}/value`, { text });
  }

  async text(css) {
    return this.cmd("GET", `/element/${await this.find(css)}/text`);
  }

  run(script, ...args) {
    return this.cmd("POST", "/execute/sync", { script, args });
  }

  /** Runs a script that calls its last argument with the result. */
  runAsync(script, ...args) {
    return this.cmd("POST", "/execute/async", { script, args });
  }

  /** Polls a script until it returns something truthy. */
  async until(what, script, timeoutMs = 15_000, ...args) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await this.run(script, ...args);
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(100);
    }
  }
}

async function call(base, method, path, body) {
  const response = await fetch(base + path, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json().catch(() => ({}));
  if (!response.ok) {
    const v = json.value ?? {};
    throw new Error(`${method} ${path}: ${v.error ?? response.status} ${v.message ?? ""}`.trim());
  }
  return json.value;
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
