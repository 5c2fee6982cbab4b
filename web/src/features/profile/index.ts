// The profile feature's public entry: what the rest of the app may use.
export { useUpdateProfile, type ProfileValues } from "./hooks/use-update-profile";
export { subscriptionStatus } from "./lib/subscription";
export type { SubscriptionStatus } from "./lib/subscription";
