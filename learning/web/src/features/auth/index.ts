// The auth feature's public entry: the signed-in state, the auth calls, the sign-in and
// recovery screens' parts, their validation and their French error texts.
export { AuthProvider, useAuth } from "./hooks/auth-context";
export { onAuthChange, requestPasswordReset, signIn, signOut, signUp, updatePassword } from "./api/auth";
export { AuthCard } from "./components/auth-card";
export { PasswordInput } from "./components/password-input";
export {
  FILL_ALL_FIELDS,
  PASSWORD_MIN,
  STUDENT_LEVELS,
  loginSchema,
  newPasswordSchema,
  recoverSchema,
  registerDefaults,
  registerSchema,
  type LoginValues,
  type NewPasswordValues,
  type RegisterValues,
  type StudentLevel,
} from "./lib/schemas";
export {
  MAX_SESSIONS_MESSAGE,
  mailLinkErrorMessage,
  passwordUpdateErrorMessage,
  recoveryRequestErrorMessage,
  signInErrorMessage,
  signUpErrorMessage,
} from "./lib/errors";
export { greeting, isNewAccount } from "./lib/greeting";
export { safeNextPath, withNext } from "./lib/next-path";
export { useLogout } from "./hooks/use-logout";
