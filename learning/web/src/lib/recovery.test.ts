import { describe, expect, it } from "vitest";
import { readMailLink } from "./recovery";

describe("readMailLink", () => {
  it("reads a recovery link's session fragment", () => {
    expect(readMailLink("#access_token=a&expires_in=3600&refresh_token=r&token_type=bearer&type=recovery", "")).toEqual({
      recovery: true,
      errorCode: null,
      sessionsEnded: 0,
    });
  });
  it("reads how many sessions were ended to make room", () => {
    expect(readMailLink("#access_token=a&type=recovery&sessions_ended=1", "").sessionsEnded).toBe(1);
    expect(readMailLink("#type=recovery&sessions_ended=-3", "").sessionsEnded).toBe(0);
  });
  it("reads a failed link's error code", () => {
    const link = readMailLink("#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired", "");
    expect(link).toEqual({ recovery: false, errorCode: "otp_expired", sessionsEnded: 0 });
    expect(readMailLink("", "?error=server_error").errorCode).toBe("server_error");
  });
  it("reads nothing from an ordinary URL", () => {
    expect(readMailLink("", "")).toEqual({ recovery: false, errorCode: null, sessionsEnded: 0 });
  });
});
