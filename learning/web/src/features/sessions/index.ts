// The sessions feature's public entry: connected devices (auth sessions) for the account page,
// the admin's Sessions tab, the login screen and the layout's 30 s status check.
export { DevicesCard } from "./components/devices-card";
export { useDeviceSession } from "./hooks/use-device-session";
export { useAllSessions, useTerminateSession } from "./hooks/use-sessions";
export { signInAndRecordDevice } from "./api/login";
export { DeviceLimitHelp } from "./components/device-limit-help";
export { type DeviceSession } from "./api/sessions";
export { deviceLabel } from "./lib/device";
