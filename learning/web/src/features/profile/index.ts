// The profile feature's public entry: what the rest of the app may use.
export { useUpdateProfile, type ProfileValues } from "./hooks/use-update-profile";
export { EXPIRING_SOON_BANNER, subscriptionStatus } from "./lib/subscription";
export { dateInputValue, dayStartInstant, expiryInstant } from "./lib/expiry";
export type { SubscriptionStatus } from "./lib/subscription";
