import { describe, expect, it } from "vitest";
import { deviceLabel, deviceName } from "./device";

describe("deviceName", () => {
  it("names browser and OS", () => {
    expect(deviceName("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36")).toBe("Chrome on Linux");
    expect(deviceName("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1")).toBe("Safari on iOS");
    expect(deviceName("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/130.0 Safari/537.36 Edg/130.0")).toBe("Edge on Windows");
    expect(deviceName("Mozilla/5.0 (Macintosh; Intel Mac OS X 14.0; rv:131.0) Gecko/20100101 Firefox/131.0")).toBe("Firefox on macOS");
    expect(deviceName("curl/8")).toBe("Unknown Browser on Unknown OS");
  });
});

describe("deviceLabel", () => {
  it("says the stored '{browser} on {OS}' in French", () => {
    expect(deviceLabel("Chrome on Linux")).toBe("Chrome sur Linux");
    expect(deviceLabel("Unknown Browser on Unknown OS")).toBe("Navigateur inconnu sur système inconnu");
    expect(deviceLabel("Safari on iOS")).toBe("Safari sur iOS");
  });
  it("keeps a name of the device's own, and names a missing one", () => {
    expect(deviceLabel("Tablette du salon")).toBe("Tablette du salon");
    expect(deviceLabel(null)).toBe("Appareil inconnu");
    expect(deviceLabel("  ")).toBe("Appareil inconnu");
  });
});
