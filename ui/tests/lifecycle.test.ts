import { describe, expect, it } from "vitest";
import { Mount, navigator } from "../src/lifecycle";

/** A stand-in for the backend's event bus: counts live listeners. */
function bus() {
  const live = new Set<number>();
  let next = 0;
  return {
    live,
    async listen(): Promise<() => void> {
      const id = next++;
      live.add(id);
      return () => live.delete(id);
    },
  };
}

describe("view lifecycle", () => {
  it("releases a view's listeners when the user navigates away", async () => {
    const events = bus();
    const nav = navigator<string>(async (view, mount) => {
      if (view === "runs") {
        // What the Runs view subscribes to: import and pull progress, drops.
        for (let i = 0; i < 5; i++) mount.hold(await events.listen());
      }
    });
    await nav.show("runs");
    expect(events.live.size).toBe(5);
    expect(nav.current()?.holding).toBe(5);
    await nav.show("rankings");
    expect(events.live.size).toBe(0);
    await nav.show("runs");
    await nav.show("runs");
    expect(events.live.size).toBe(5);
  });

  it("releases at once what arrives after the view is gone", async () => {
    const events = bus();
    const mount = new Mount();
    const pending = events.listen();
    mount.unmount();
    mount.hold(await pending);
    expect(events.live.size).toBe(0);
    expect(mount.mounted).toBe(false);
  });

  it("releases every subscription even when one throws", () => {
    const mount = new Mount();
    const released: number[] = [];
    mount.hold(() => released.push(1));
    mount.hold(() => {
      throw new Error("gone already");
    });
    mount.hold(() => released.push(3));
    mount.unmount();
    mount.unmount();
    expect(released).toEqual([3, 1]);
  });
});
