// A view's time on screen. What a view subscribes to while it is shown
// (backend events, drag-and-drop, hooks into state that outlives it) is held
// by its Mount and released when the user navigates away, so no listener of
// a screen that is gone keeps firing into detached elements.

export class Mount {
  private releases: (() => void)[] = [];
  private done = false;

  /** Keep `release` until the view unmounts. A subscription that arrives
   * after the user has already left (subscribing is asynchronous) is
   * released at once. */
  hold(release: () => void): void {
    if (this.done) {
      release();
    } else {
      this.releases.push(release);
    }
  }

  /** Whether the view is still on screen. */
  get mounted(): boolean {
    return !this.done;
  }

  /** How many subscriptions the view holds. */
  get holding(): number {
    return this.releases.length;
  }

  /** Release everything held, newest first; the second call does nothing. */
  unmount(): void {
    this.done = true;
    const releases = this.releases.reverse();
    this.releases = [];
    for (const release of releases) {
      try {
        release();
      } catch {
        // One release that throws must not keep the others alive.
      }
    }
  }
}

export type Render<V> = (view: V, mount: Mount) => Promise<void>;

/** One view at a time: showing a view first unmounts the one before it. */
export function navigator<V>(render: Render<V>): { show(view: V): Promise<void>; current(): Mount | null } {
  let mount: Mount | null = null;
  return {
    async show(view: V): Promise<void> {
      mount?.unmount();
      const next = new Mount();
      mount = next;
      await render(view, next);
    },
    current: () => mount,
  };
}
