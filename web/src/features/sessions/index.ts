// The sessions feature's public entry: connected devices (auth sessions) for the account page,
// the admin's Sessions tab, the login screen and the layout's 30 s status check.
export { DevicesCard, MAX_DEVICES } from "./components/devices-card";
export { useDeviceSession, useThisDeviceId, HEARTBEAT_MS } from "./hooks/use-device-session";
export { sessionKeys, useAllSessions, useMySessions, useTerminateSession } from "./hooks/use-sessions";
export { signInAndRecordDevice } from "./api/login";
export { listAllSessions, listMySessions, terminateSession, type DeviceSession } from "./api/sessions";
export { endedSessionText } from "./lib/end-reason";
